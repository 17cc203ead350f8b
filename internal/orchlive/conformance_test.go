package orchlive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/orchcore"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// The replicas' own settings, live and in the model: MariaDB's defaults (slave_net_timeout
// 60 s, a heartbeat every 30 s) would make each silent fault wait up to a minute; these make
// it wait 3 to 4 s, and the heartbeat's phase, which the test cannot set, is worth at most
// a second. MASTER_CONNECT_RETRY 1 is internal/mariadb's own.
var replicaSettings = orchestrator.Replica{NetTimeout: 4 * time.Second, HeartbeatPeriod: time.Second, ConnectRetry: time.Second}

// orcUser is Orchestrator's MySQLTopologyUser on every member.
const orcUser = "failsim_orc"

// orcGrants are what Orchestrator's reads and a recovery need on MariaDB 10.11 (its docs ask
// for SUPER, PROCESS, REPLICATION SLAVE, RELOAD and SELECT on mysql.slave_master_info; from
// 10.5 SHOW SLAVE STATUS needs SLAVE MONITOR and SHOW MASTER STATUS BINLOG MONITOR, and from
// 10.11 read_only READ_ONLY ADMIN, which SUPER no longer includes).
const orcGrants = "SUPER, PROCESS, RELOAD, REPLICATION SLAVE, BINLOG MONITOR, SLAVE MONITOR, REPLICATION SLAVE ADMIN, READ_ONLY ADMIN, REPLICATION MASTER ADMIN, SELECT"

// fault lead-in: the test's clock starts once Orchestrator holds the cluster with no problem;
// the fault comes this long after, in the model as live.
const lead = 5 * time.Second

// pollEvery is how often the test reads Orchestrator's analysis and recoveries.
const pollEvery = 200 * time.Millisecond

// faultCase is one fault played on a cluster Orchestrator watches, and the same fault in the
// model's timeline.
type faultCase struct {
	name   string
	events string                      // the model's timeline lines at the fault's instant, "%s" the clock
	set    func(r *rig, on bool) error // on: play the fault; off: heal it
	window time.Duration               // how long after the fault the test watches
	// silent: the fault is noticed by the replicas only at slave_net_timeout after their last
	// heartbeat, whose phase the test cannot set: the tolerance grows by a heartbeat period.
	silent bool
}

// masterMode sets mode m on the master as every client meets it: its proxy node (Orchestrator's
// reads) and its end of every replica's link (the replicas' I/O threads).
func masterMode(m string) func(r *rig, on bool) error {
	return func(r *rig, on bool) error {
		mode := mustMode(m)
		if !on {
			mode = mustMode("heal")
		}
		if err := r.p.SetMode(r.c.Names[0], mode); err != nil {
			return err
		}
		for j := 1; j < len(r.c.Servers); j++ {
			if err := r.c.Links.SetMode(r.c.LinkName(j, 0), mode); err != nil {
				return err
			}
		}
		return nil
	}
}

// managersCut cuts Orchestrator's reads of the members given, as a partition of the managers'
// network alone does (timeline "partition managers"): their proxy nodes, which Orchestrator
// reads through, drop every packet (blackhole), and the replicas' links, which replicate
// around them, are untouched.
func managersCut(members ...int) func(r *rig, on bool) error {
	return func(r *rig, on bool) error {
		mode := mustMode("blackhole")
		if !on {
			mode = mustMode("heal")
		}
		for _, j := range members {
			if err := r.p.SetMode(r.c.Names[j], mode); err != nil {
				return err
			}
		}
		return nil
	}
}

// linkFreeze freezes (or heals) the replication links of the replicas given.
func linkFreeze(replicas ...int) func(r *rig, on bool) error {
	return func(r *rig, on bool) error {
		mode := mustMode("freeze")
		if !on {
			mode = mustMode("heal")
		}
		for _, j := range replicas {
			if err := r.c.SetLink(j, mode); err != nil {
				return err
			}
		}
		return nil
	}
}

func mustMode(s string) proxy.Mode {
	m, err := proxy.ParseMode(strings.Fields(s))
	if err != nil {
		panic(err)
	}
	return m
}

// TestOrchestratorConformance plays faults on a replicated MariaDB cluster watched by a real
// Orchestrator through failsim's proxies, and holds what Orchestrator does (its analysis code of
// the master over time, whether and when a recovery ran and whom it promoted) to failsim's
// Orchestrator model replaying the same timeline with the same settings, within one poll (and
// the analysis second) of detection.
func TestOrchestratorConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the live Orchestrator takes minutes")
	}
	mariadb.Require(t)
	bin := orchestratorBinary(t)
	begin := time.Now()

	// Two clusters: the faults Orchestrator recovers nothing from share the first, healed and
	// steady again between them, and end with the master's freeze, which Orchestrator
	// recovers; the hard death, which it recovers too, has the second to itself.
	groups := [][]faultCase{{
		{name: "stall", events: "%s db1 stall", set: masterMode("stall"), window: 15 * time.Second},
		{name: "replica-link-freeze", events: "%s db2 link freeze", set: linkFreeze(1), window: 12 * time.Second, silent: true},
		{name: "all-links-freeze", events: "%s db2 link freeze\n%s db3 link freeze", set: linkFreeze(1, 2), window: 12 * time.Second, silent: true},
		{name: "managers-partition", events: "%s partition managers db1 | db2 db3", set: managersCut(0), window: 12 * time.Second},
		{name: "freeze", events: "%s db1 freeze", set: masterMode("freeze"), window: 20 * time.Second, silent: true},
	}, {
		{name: "hard-death", events: "%s db1 refuse", set: masterMode("refuse"), window: 12 * time.Second},
	}}
	for gi, cases := range groups {
		r := newRig(t, bin)
		for ci, fc := range cases {
			if ci > 0 {
				r.waitSteady(t)
			}
			ok := t.Run(fc.name, func(t *testing.T) { r.play(t, fc) })
			if !ok && ci < len(cases)-1 {
				t.Logf("group %d: %s failed; the cases after it run on a cluster it may have left unsteady", gi, fc.name)
			}
		}
		r.close(t)
	}
	t.Logf("the whole test took %v", time.Since(begin).Round(time.Second))
}

// rig is one cluster, its proxies and the Orchestrator watching it.
type rig struct {
	c       *mariadb.Cluster
	p       *proxy.Proxy
	proxies map[string]int // proxy address -> member
	addrs   []string       // per member, its proxy's address
	api     string         // Orchestrator's API: http://127.0.0.1:PORT/api/
	cmd     *exec.Cmd
	log     string
	exited  chan struct{}
	dbPath  string
	cfg     orchestrator.Config // the model's reading of the same configuration file
}

func newRig(t *testing.T, bin string) *rig {
	t.Helper()
	start := time.Now()
	c := mariadb.NeedCluster(t, 3)
	ctx := context.Background()
	pw := "orc" + strconv.FormatInt(time.Now().UnixNano(), 36)
	for i, s := range c.Servers {
		stmts := []string{
			"SET SESSION sql_log_bin = 0",
			"CREATE USER '" + orcUser + "'@'%' IDENTIFIED BY '" + pw + "'",
			"GRANT " + orcGrants + " ON *.* TO '" + orcUser + "'@'%'",
		}
		if i > 0 {
			stmts = append(stmts, "STOP SLAVE",
				fmt.Sprintf("SET GLOBAL slave_net_timeout = %d", int(replicaSettings.NetTimeout/time.Second)),
				fmt.Sprintf("CHANGE MASTER TO MASTER_HEARTBEAT_PERIOD = %d, MASTER_CONNECT_RETRY = %d",
					int(replicaSettings.HeartbeatPeriod/time.Second), int(replicaSettings.ConnectRetry/time.Second)),
				"START SLAVE")
		}
		if err := s.Exec(ctx, stmts...); err != nil {
			t.Fatalf("%s: %v", c.Names[i], err)
		}
	}
	for i := 1; i < len(c.Servers); i++ {
		waitReplicating(t, c, i)
	}

	// A failsim node with topology rewriting in front of every member: each replica's
	// Master_Host names its link, which the node in front of the link's source stands for.
	var nodes []proxy.NodeConfig
	for i, s := range c.Servers {
		nc := proxy.NodeConfig{Name: c.Names[i], Listen: "127.0.0.1:0", Upstream: s.Addr, RewriteTopology: true}
		for j := range c.Servers {
			if j != i {
				nc.TopologyAliases = append(nc.TopologyAliases, c.Route(j, i))
			}
		}
		nodes = append(nodes, nc)
	}
	p, err := proxy.New(proxy.Config{Nodes: nodes, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{c: c, p: p, proxies: map[string]int{}, exited: make(chan struct{})}
	for i, name := range c.Names {
		n, _ := p.Node(name)
		r.proxies[n.Addr()] = i
		r.addrs = append(r.addrs, n.Addr())
	}

	// Orchestrator: one process, SQLite in a temporary folder, its API on a free loopback
	// port, every hostname taken as given (no DNS), recovery of every cluster on.
	dir := t.TempDir()
	port := freePort(t)
	conf := map[string]any{
		"Debug":                                  false,
		"ListenAddress":                          fmt.Sprintf("127.0.0.1:%d", port),
		"BackendDB":                              "sqlite",
		"SQLite3DataFile":                        filepath.Join(dir, "orchestrator.sqlite3"),
		"MySQLTopologyUser":                      orcUser,
		"MySQLTopologyPassword":                  pw,
		"InstancePollSeconds":                    1,
		"HostnameResolveMethod":                  "none",
		"MySQLHostnameResolveMethod":             "none",
		"DiscoverByShowSlaveHosts":               true,
		"SkipMaxScaleCheck":                      true,
		"AutoPseudoGTID":                         false,
		"RecoverMasterClusterFilters":            []string{"*"},
		"RecoveryPeriodBlockSeconds":             3600,
		"ApplyMySQLPromotionAfterMasterFailover": true,
		"RaftEnabled":                            false,
	}
	data, _ := json.MarshalIndent(conf, "", "  ")
	confPath := filepath.Join(dir, "orchestrator.conf.json")
	if err := os.WriteFile(confPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if r.cfg, _, err = orchestrator.Parse(confPath, data); err != nil {
		t.Fatalf("the model reads %s: %v", confPath, err)
	}
	r.log = filepath.Join(dir, "orchestrator.log")
	r.dbPath = filepath.Join(dir, "orchestrator.sqlite3")
	logf, err := os.Create(r.log)
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(bin, "-config", confPath, "http")
	r.cmd.Dir = dir
	r.cmd.Stdout, r.cmd.Stderr = logf, logf
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start Orchestrator: %v", err)
	}
	go func() { r.cmd.Wait(); logf.Close(); close(r.exited) }()
	t.Cleanup(func() { r.close(t) })
	r.api = fmt.Sprintf("http://127.0.0.1:%d/api/", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var v any
		if err := r.get("clusters", &v); err == nil {
			break
		}
		select {
		case <-r.exited:
			t.Fatalf("Orchestrator exited at start-up:\n%s", r.logTail())
		default:
		}
		if time.Now().After(deadline) {
			r.close(t)
			t.Fatalf("Orchestrator's API not up after 60s:\n%s", r.logTail())
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Discovered through db1's proxy; db3 registered as the preferred candidate, in the model
	// as live (a tie on position would otherwise be broken by Orchestrator's backend order).
	host, port1 := splitHostPort(r.addrs[0])
	var resp apiResponse
	if err := r.get(fmt.Sprintf("discover/%s/%d", host, port1), &resp); err != nil || resp.Code != "OK" {
		r.close(t)
		t.Fatalf("discover %s: %v %s\n%s", r.addrs[0], err, resp.Message, r.logTail())
	}
	r.waitDiscovered(t)
	h3, p3 := splitHostPort(r.addrs[2])
	if err := r.get(fmt.Sprintf("register-candidate/%s/%d/prefer", h3, p3), &resp); err != nil || resp.Code != "OK" {
		r.close(t)
		t.Fatalf("register-candidate db3: %v %s", err, resp.Message)
	}
	r.waitSteady(t)
	t.Logf("cluster, proxies and Orchestrator up and steady in %v (proxies %v)", time.Since(start).Round(100*time.Millisecond), r.addrs)
	return r
}

// waitDiscovered waits until Orchestrator holds the three members, and checks that every
// address it holds, anywhere in its instances, is a proxy's.
func (r *rig) waitDiscovered(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var all []map[string]any
		err := r.get("all-instances", &all)
		if err == nil && len(all) == 3 && r.replicasOfMaster(all) == 2 {
			var held []string
			for _, in := range all {
				collectKeys(in, &held)
			}
			for _, a := range held {
				if _, ok := r.proxies[a]; !ok {
					t.Errorf("Orchestrator holds %s, not a proxy address (proxies %v; real servers %v)", a, r.addrs, realAddrs(r.c))
				}
			}
			if len(held) < 5 { // three keys, two replicas' master keys at least
				t.Errorf("Orchestrator's instances name only %v", held)
			}
			t.Logf("Orchestrator holds %d addresses, every one a proxy's: %v", len(held), dedupe(held))
			r.checkLoopbackOnly(t)
			return
		}
		if time.Now().After(deadline) {
			r.close(t)
			t.Fatalf("Orchestrator did not discover the cluster in 30s (%d instances, %v):\n%s", len(all), err, r.logTail())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// checkLoopbackOnly checks that every TCP socket Orchestrator holds (its backend is a file, its
// API a loopback listener, its reads go to the proxies) is with 127.0.0.0/8, or a listener's
// unspecified remote.
func (r *rig) checkLoopbackOnly(t *testing.T) {
	t.Helper()
	ips, ok, err := remoteAddrs(r.cmd.Process.Pid)
	if err != nil {
		t.Error(err)
	}
	if !ok {
		t.Log("no /proc: Orchestrator's sockets not checked")
		return
	}
	if len(ips) == 0 {
		t.Errorf("Orchestrator holds no TCP socket: the check sees nothing (its API listener at least should show)")
	}
	for _, ip := range ips {
		if !ip.IsLoopback() && !ip.IsUnspecified() {
			t.Errorf("Orchestrator holds a TCP socket with %s, outside 127.0.0.0/8", ip)
		}
	}
	t.Logf("Orchestrator's %d TCP sockets: every remote on loopback (or a listener's)", len(ips))
}

// replicasOfMaster counts the instances whose master key is db1's proxy.
func (r *rig) replicasOfMaster(all []map[string]any) int {
	n := 0
	for _, in := range all {
		if k, ok := in["MasterKey"].(map[string]any); ok && keyString(k) == r.addrs[0] {
			n++
		}
	}
	return n
}

// waitSteady waits until Orchestrator has read every member fine, finds no problem on the
// master and every replica replicating, for 3 s in a row (the model starts there).
func (r *rig) waitSteady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var since time.Time
	for {
		ok, why := r.steady()
		switch {
		case !ok:
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) >= 3*time.Second:
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not steady after 60s: %s\n%s", why, r.logTail())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (r *rig) steady() (bool, string) {
	code, _, err := r.masterCode()
	if err != nil {
		return false, err.Error()
	}
	if code != "NoProblem" {
		return false, "master " + code
	}
	var all []map[string]any
	if err := r.get("all-instances", &all); err != nil {
		return false, err.Error()
	}
	for _, in := range all {
		k, _ := in["Key"].(map[string]any)
		if keyString(k) == r.addrs[0] {
			continue
		}
		if in["ReplicationIOThreadRuning"] != true || in["ReplicationSQLThreadRuning"] != true || in["IsLastCheckValid"] != true {
			return false, keyString(k) + " not replicating or not read"
		}
	}
	return true, ""
}

// traceViews logs each change of Orchestrator's view of an instance: whether its last check is
// valid, whether it is up to date, when it was last seen, and its replication threads.
func (r *rig) traceViews(t *testing.T, now time.Duration, views map[string]string, o *observed) {
	var all []map[string]any
	if err := r.get("all-instances", &all); err != nil {
		return
	}
	// ORCHLIVE_SQLITE=1 (with the sqlite3 command) also logs the backend's own stamps of each
	// instance: last_checked, last_attempted_check, last_seen, last_check_partial_success, and
	// the analysis query's is_last_check_valid expression (InstancePollSeconds 1 + 1 s).
	if os.Getenv("ORCHLIVE_SQLITE") != "" {
		out, _ := exec.Command("sqlite3", "-readonly", r.dbPath, "select port, last_checked, last_attempted_check, last_seen, last_check_partial_success, last_checked <= last_seen and last_attempted_check <= datetime(last_seen, printf('+%d second', 2)) from database_instance").CombinedOutput()
		if string(out) != views["sqlite"] {
			views["sqlite"] = string(out)
			t.Logf("  sqlite %+6.1fs %s", now.Seconds(), strings.ReplaceAll(string(out), "\n", " / "))
		}
	}
	for _, in := range all {
		k, _ := in["Key"].(map[string]any)
		name := keyString(k)
		if i, ok := r.proxies[name]; ok {
			name = r.c.Names[i]
		}
		v := fmt.Sprintf("valid %v uptodate %v seen %v io %v sql %v", in["IsLastCheckValid"], in["IsUpToDate"],
			in["LastSeenTimestamp"], in["ReplicationIOThreadRuning"], in["ReplicationSQLThreadRuning"])
		if in["ReplicationIOThreadRuning"] == false && name != r.c.Names[0] && !o.recovered {
			if _, ok := o.ioStop[name]; !ok {
				if o.ioStop == nil {
					o.ioStop = map[string]time.Duration{}
				}
				o.ioStop[name] = now
			}
		}
		if views[name] != v {
			views[name] = v
			t.Logf("  live %+6.1fs %s: %s", now.Seconds(), name, v)
		}
	}
}

// observed is what the test saw Orchestrator do, times from the fault.
type observed struct {
	codes     []timedCode // the master's code at each change
	recovered bool
	recSeen   bool          // live: the recovery has been seen, perhaps still running
	at        time.Duration // when the recovery was first seen
	promoted  string        // its successor, a member's name ("" for none)
	recCode   string        // the code it recovered
	// ioStop is, per replica, when its I/O thread stopped: in the model the world's (the
	// replica's own), live the first time Orchestrator's view of it says so.
	ioStop map[string]time.Duration
}

type timedCode struct {
	at   time.Duration
	code string
}

func (o observed) String() string {
	var b strings.Builder
	for _, c := range o.codes {
		fmt.Fprintf(&b, "%+.1fs %s; ", c.at.Seconds(), c.code)
	}
	if o.recovered {
		fmt.Fprintf(&b, "recovery of %s at %+.1fs promotes %q", o.recCode, o.at.Seconds(), o.promoted)
	} else {
		b.WriteString("no recovery")
	}
	return b.String()
}

// play plays fc on r and compares Orchestrator with the model.
func (r *rig) play(t *testing.T, fc faultCase) {
	tol := r.cfg.InstancePoll + time.Second // one poll and the analysis second
	if fc.silent {
		tol += replicaSettings.HeartbeatPeriod
	}
	model := r.model(t, fc)
	t.Logf("model: %s", model)

	t0 := time.Now()
	faultAt := t0.Add(lead)
	time.Sleep(time.Until(faultAt))
	if err := fc.set(r, true); err != nil {
		t.Fatal(err)
	}
	var live observed
	last := ""
	views := map[string]string{} // per instance, Orchestrator's last view of it, for the log
	for time.Since(faultAt) < fc.window {
		now := time.Since(faultAt)
		code, _, err := r.masterCode()
		if err != nil {
			code = "(error: " + err.Error() + ")"
		}
		if !live.recovered {
			r.readRecovery(&live, now)
		}
		if code != last && !live.recovered {
			live.codes = append(live.codes, timedCode{now, code})
			last = code
		}
		r.traceViews(t, now, views, &live)
		time.Sleep(pollEvery)
	}
	if err := fc.set(r, false); err != nil {
		t.Fatal(err)
	}
	t.Logf("live:  %s", live)
	r.checkLoopbackOnly(t)

	// The verdicts: the first problem, the code the master settles in (at the end, or when a
	// recovery took it), whether a recovery ran, when, and whom it promoted.
	mFirst, mOK := firstProblem(model.codes)
	lFirst, lOK := firstProblem(live.codes)
	switch {
	case mOK != lOK:
		t.Errorf("a problem found: model %v, live %v", mOK, lOK)
	case mOK && absDur(mFirst.at-lFirst.at) > tol:
		t.Errorf("first problem: model %s at %+.1fs, live %s at %+.1fs: more than %v apart", mFirst.code, mFirst.at.Seconds(), lFirst.code, lFirst.at.Seconds(), tol)
	}
	mLast, lLast := settled(model), settled(live)
	if live.recovered { // the code it recovered, not what the master became as it began
		lLast = timedCode{code: live.recCode}
	}
	if mLast.code != lLast.code {
		t.Errorf("the master's code at the end (or at the recovery): model %s, live %s", mLast.code, lLast.code)
	} else if fst, ok := firstOf(live.codes, lLast.code); ok {
		mf, _ := firstOf(model.codes, mLast.code)
		if absDur(mf-fst) > tol {
			t.Errorf("%s: model from %+.1fs, live from %+.1fs: more than %v apart", mLast.code, mf.Seconds(), fst.Seconds(), tol)
		}
	}
	switch {
	case model.recovered != live.recovered:
		t.Errorf("a recovery ran: model %v, live %v", model.recovered, live.recovered)
	case model.recovered:
		if model.promoted != live.promoted {
			t.Errorf("promoted: model %q, live %q", model.promoted, live.promoted)
		}
		if model.recCode != live.recCode {
			t.Errorf("recovered code: model %s, live %s", model.recCode, live.recCode)
		}
		// The API's analysis is computed when asked; the real recovery runs at the next
		// one-second recovery tick (RecoveryPollSeconds, config.go:46), and the test sees it at
		// its next poll of audit-recovery. The model recovers at the very tick of its code.
		if rtol := tol + orchestrator.RecoveryPoll + pollEvery; absDur(model.at-live.at) > rtol {
			t.Errorf("recovery: model at %+.1fs, live at %+.1fs: more than %v apart", model.at.Seconds(), live.at.Seconds(), rtol)
		}
	}
	// The replicas' I/O threads: Orchestrator sees a stop at its next read of the replica, at
	// most a poll and the whole-second stamp after the model's stop.
	for _, name := range r.c.Names[1:] {
		m, mok := model.ioStop[name]
		l, lok := live.ioStop[name]
		switch {
		case mok != lok:
			t.Errorf("%s's I/O thread stops: model %v, live %v (model %v, live %v)", name, mok, lok, model.ioStop, live.ioStop)
		case mok && (l < m-replicaSettings.HeartbeatPeriod || l > m+tol):
			t.Errorf("%s's I/O thread: stops at %+.1fs in the model, Orchestrator sees it stopped at %+.1fs: not within [-%v, +%v]", name, m.Seconds(), l.Seconds(), replicaSettings.HeartbeatPeriod, tol)
		}
	}
	t.Logf("figures %s: first problem model %s live %s; %s model %+.1fs live %+.1fs; I/O stops model %v live %v; recovery model %v live %v (tolerance %v)",
		fc.name, problemFigure(mFirst, mOK), problemFigure(lFirst, lOK), lLast.code, firstOrZero(model.codes, mLast.code).Seconds(),
		firstOrZero(live.codes, lLast.code).Seconds(), stopsFigure(model.ioStop), stopsFigure(live.ioStop), recoveryFigure(model), recoveryFigure(live), tol)
}

func problemFigure(c timedCode, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprintf("%s %+.1fs", c.code, c.at.Seconds())
}

func stopsFigure(m map[string]time.Duration) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, n := range []string{"db2", "db3"} {
		if d, ok := m[n]; ok {
			parts = append(parts, fmt.Sprintf("%s %+.1fs", n, d.Seconds()))
		}
	}
	return strings.Join(parts, " ")
}

func recoveryFigure(o observed) string {
	if !o.recovered {
		return "none"
	}
	return fmt.Sprintf("%s %+.1fs", o.promoted, o.at.Seconds())
}

func firstProblem(codes []timedCode) (timedCode, bool) {
	for _, c := range codes {
		if c.code != "NoProblem" {
			return c, true
		}
	}
	return timedCode{}, false
}

// settled is the master's last code seen: at the end of the watch, or before its recovery.
func settled(o observed) timedCode {
	if len(o.codes) == 0 {
		return timedCode{code: "NoProblem"}
	}
	return o.codes[len(o.codes)-1]
}

// firstOf is when code first held in the run of it that the codes end with.
func firstOf(codes []timedCode, code string) (time.Duration, bool) {
	for i := len(codes) - 1; i >= 0; i-- {
		if codes[i].code != code {
			if i+1 < len(codes) {
				return codes[i+1].at, true
			}
			return 0, false
		}
		if i == 0 {
			return codes[0].at, true
		}
	}
	return 0, false
}

func firstOrZero(codes []timedCode, code string) time.Duration {
	d, _ := firstOf(codes, code)
	return d
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// model replays fc's timeline under the model with r's configuration and the replicas'
// settings, and returns what it decides, times from the fault.
func (r *rig) model(t *testing.T, fc faultCase) observed {
	t.Helper()
	clock := func(d time.Duration) string {
		s := int(d / time.Second)
		return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	ev := strings.ReplaceAll(fc.events, "%s", clock(lead))
	// Orchestrator's host stands beside db2: only a partition moves it off db1's segment.
	text := "cluster db1:master db2:replica db3:replica\npromotion db3=prefer\nmanager orchestrator near db2\n\n" + ev + "\n" +
		clock(lead+fc.window+10*time.Second) + " cluster end\n"
	tl, err := timeline.Parse(fc.name+".timeline", []byte(text))
	if err != nil {
		t.Fatalf("the model's timeline:\n%s\n%v", text, err)
	}
	rec := &recorder{names: tl.Names()}
	if _, err := sim.ReplayOrchestratorReplicas(tl, r.cfg, replicaSettings, rec); err != nil {
		t.Fatalf("the model:\n%s\n%v", text, err)
	}
	var o observed
	for _, e := range rec.events {
		at := e.When() - lead
		if at > fc.window {
			break
		}
		switch e := e.(type) {
		case *orchcore.Analysed:
			if e.Master == 0 && !o.recovered {
				o.codes = append(o.codes, timedCode{at, e.Code.String()})
			}
		case *orchcore.IOThread:
			if !e.Running && !o.recovered {
				if o.ioStop == nil {
					o.ioStop = map[string]time.Duration{}
				}
				if _, ok := o.ioStop[tl.Names()[e.Node]]; !ok {
					o.ioStop[tl.Names()[e.Node]] = at
				}
			}
		case *orchcore.Recovered:
			if e.Verdict == orchestrator.Runs && e.Failed == 0 && !o.recovered {
				o.recovered, o.at, o.recCode = true, at, e.Code.String()
				if e.Node >= 0 {
					o.promoted = tl.Names()[e.Node]
				}
			}
		}
	}
	t.Logf("the model's timeline:\n%s", text)
	for _, line := range rec.lines {
		t.Logf("  model %s", line)
	}
	return o
}

// recorder keeps a run's events and their words.
type recorder struct {
	names  []string
	events []act.Event
	lines  []string
}

func (rc *recorder) Event(ev act.Event) {
	rc.events = append(rc.events, ev)
	if s, ok := orchcore.Describe(rc.names, ev); ok {
		rc.lines = append(rc.lines, fmt.Sprintf("%6.1fs %s", (ev.When()-lead).Seconds(), s))
	}
}

// apiResponse is the envelope of Orchestrator's API answers that are not bare values.
type apiResponse struct {
	Code    string
	Message string
	Details json.RawMessage
}

// masterCode reads Orchestrator's replication analysis and returns the code of the master
// (db1's proxy), NoProblem when it has no entry, and the other entries for the log.
func (r *rig) masterCode() (string, []string, error) {
	var resp apiResponse
	if err := r.get("replication-analysis", &resp); err != nil {
		return "", nil, err
	}
	if resp.Code != "OK" {
		return "", nil, fmt.Errorf("replication-analysis: %s", resp.Message)
	}
	var entries []struct {
		AnalyzedInstanceKey map[string]any
		Analysis            string
	}
	if err := json.Unmarshal(resp.Details, &entries); err != nil {
		return "", nil, err
	}
	code := "NoProblem"
	var others []string
	for _, e := range entries {
		if keyString(e.AnalyzedInstanceKey) == r.addrs[0] {
			code = e.Analysis
		} else {
			others = append(others, keyString(e.AnalyzedInstanceKey)+" "+e.Analysis)
		}
	}
	return code, others, nil
}

// readRecovery notes the first recovery of the master Orchestrator has registered.
func (r *rig) readRecovery(o *observed, now time.Duration) {
	var recs []struct {
		AnalysisEntry struct {
			AnalyzedInstanceKey map[string]any
			Analysis            string
		}
		SuccessorKey         map[string]any
		IsSuccessful         bool
		RecoveryEndTimestamp string // empty while the recovery runs
	}
	if err := r.get("audit-recovery", &recs); err != nil {
		return
	}
	for _, rc := range recs {
		if keyString(rc.AnalysisEntry.AnalyzedInstanceKey) != r.addrs[0] {
			continue
		}
		if !o.recSeen {
			o.recSeen, o.at = true, now // when it was first seen, though still running
		}
		if rc.RecoveryEndTimestamp == "" && !rc.IsSuccessful {
			return // still running: its successor key may be empty yet (it read ":0"); look again
		}
		o.recovered, o.recCode = true, rc.AnalysisEntry.Analysis
		if rc.SuccessorKey != nil && rc.SuccessorKey["Hostname"] != "" {
			if i, ok := r.proxies[keyString(rc.SuccessorKey)]; ok {
				o.promoted = r.c.Names[i]
			} else {
				o.promoted = keyString(rc.SuccessorKey)
			}
		}
		return
	}
}

// get reads Orchestrator's API path into v.
func (r *rig) get(path string, v any) error {
	cl := http.Client{Timeout: 5 * time.Second}
	resp, err := cl.Get(r.api + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %.200s", path, resp.Status, b)
	}
	return json.Unmarshal(b, v)
}

func (r *rig) logTail() string {
	b, _ := os.ReadFile(r.log)
	return tailOf(b, 3000)
}

// close stops Orchestrator (the process this test started) and the proxies; the cluster
// stops with the test.
func (r *rig) close(t *testing.T) {
	if r.cmd != nil && r.cmd.Process != nil {
		select {
		case <-r.exited:
		default:
			r.cmd.Process.Kill()
			<-r.exited
		}
		r.cmd = nil
	}
	if r.p != nil {
		r.p.Close()
		r.p = nil
	}
}

// collectKeys appends every {Hostname, Port} address in v, at any depth.
func collectKeys(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if h, ok := v["Hostname"].(string); ok && h != "" {
			if _, ok := v["Port"].(float64); ok {
				*out = append(*out, keyString(v))
			}
		}
		for _, x := range v {
			collectKeys(x, out)
		}
	case []any:
		for _, x := range v {
			collectKeys(x, out)
		}
	}
}

func keyString(k map[string]any) string {
	h, _ := k["Hostname"].(string)
	p, _ := k["Port"].(float64)
	return net.JoinHostPort(h, strconv.Itoa(int(p)))
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func realAddrs(c *mariadb.Cluster) []string {
	var out []string
	for _, s := range c.Servers {
		out = append(out, s.Addr)
	}
	return out
}

func splitHostPort(addr string) (string, int) {
	h, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return h, n
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitReplicating waits until member i's replication threads both run again.
func waitReplicating(t *testing.T, c *mariadb.Cluster, i int) {
	t.Helper()
	db, err := c.Servers[i].Root()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := mariadb.SlaveStatus(context.Background(), db)
		if err == nil && st["Slave_IO_Running"] == "Yes" && st["Slave_SQL_Running"] == "Yes" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: replication not running after 30s: %v %v", c.Names[i], st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
