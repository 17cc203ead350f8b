package sim

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/orchcore"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// ReplayOrchestrator runs tl under Orchestrator's rules, with its settings cfg and MariaDB's
// default replica settings (GTID replication, as failsim's live cluster), the timeline's
// promotion rules and data centres, Orchestrator's host beside the timeline's "near" member
// in a partition, in virtual time, and tells each observer what happens: the
// driver's echoes of the timeline's faults and package orchcore's events (orchcore.Describe
// says them). It returns the machine as it stands at the end. A fault or replication event the
// model does not cover is a *fileline.Error at its line.
//
// The driver schedules the run as it does Tungsten's: the timeline's actions, then the
// machine's own one-second ticks (its Next, as drive.Config.Wake); the machine runs no probe.
// At each instant the replication events due are told to the machine first, then the driver
// begins the instant (its faults reach the machine as the driver's *act.FaultSet echoes), then
// the machine steps to it (orchcore.Machine.Step), then the driver closes it and tells the
// observers.
func ReplayOrchestrator(tl *timeline.Timeline, cfg orchestrator.Config, obs ...drive.Observer) (*orchcore.Machine, error) {
	return ReplayOrchestratorReplicas(tl, cfg, orchestrator.DefaultReplica(), obs...)
}

// ReplayOrchestratorReplicas is ReplayOrchestrator with every replica's own replication
// settings rep (slave_net_timeout, MASTER_HEARTBEAT_PERIOD, MASTER_CONNECT_RETRY) instead of
// MariaDB's defaults: the conformance test against a real Orchestrator shortens them on its
// live replicas and replays the model with the same.
func ReplayOrchestratorReplicas(tl *timeline.Timeline, cfg orchestrator.Config, rep orchestrator.Replica, obs ...drive.Observer) (*orchcore.Machine, error) {
	master := -1
	for i, n := range tl.Nodes {
		if n.Role == fence.Master {
			master = i
		}
	}
	rules := make([]orchestrator.Rule, len(tl.Promotion))
	for i, name := range tl.Promotion {
		rules[i], _ = orchestrator.ParseRule(name) // the parser checked it; "" is neutral
	}
	near := slices.Index(tl.Names(), tl.ManagerNear)
	m := orchcore.New(orchcore.Config{
		Orchestrator: cfg, Replica: rep, Nodes: len(tl.Nodes), Master: master,
		Cluster: orchestrator.Cluster{Name: tl.Nodes[max(master, 0)].Name}, End: tl.End, MariaDBGTID: true,
		Rules: rules, DCs: tl.DataCenters, Near: near, NearOK: tl.ManagerNear != "" && near >= 0,
	})
	var evs []timeline.ReplEvent
	if tl.Repl != nil {
		evs = tl.Repl.Events
	}
	next := 0
	fan := &orchFan{m: m, obs: obs, tl: tl, rr: orchReplOf(tl, obs), inst: drive.Instants(obs)}
	wake := func() (time.Duration, bool) {
		at, ok := m.Next()
		if next < len(evs) && (!ok || evs[next].At < at) {
			at, ok = evs[next].At, true
		}
		if fan.rr != nil {
			if own, sure := fan.rr.next(); sure && (!ok || own < at) {
				at, ok = own, true
			}
		}
		return at, ok
	}
	d := drive.New(m, drive.Config{
		Interval: tl.Interval, Script: tl.Events, Checkpoints: tl.Checkpoints(), End: tl.End,
		Foresee: func(_ fault.Fault) act.Outcome { return act.Outcome{Condition: statemap.OK} },
		Wake:    wake,
	}, fan)
	for !d.Ended() {
		t := d.Next()
		for next < len(evs) && evs[next].At <= t {
			m.Replicate(evs[next].At, evs[next].Input)
			if fan.rr != nil {
				fan.rr.replicate(evs[next])
			}
			next++
		}
		if fan.rr != nil {
			fan.rr.begin(t)
		}
		d.Begin(t)
		m.Step(t)
		d.Close()
		if fan.err != nil {
			return m, fan.err
		}
		if err := m.Err(); err != nil {
			return m, fileline.Errorf(tl.File, 0, "%w", err)
		}
	}
	return m, nil
}

// orchFan passes the driver's events on to the observers, a fault set on a link to the
// machine too, and, for a timeline with replication, each event and instant to the
// replication model's run (rr), whose decisions follow the event they come of.
type orchFan struct {
	m    *orchcore.Machine
	obs  []drive.Observer
	tl   *timeline.Timeline
	rr   *orchRepl               // nil: no replication model (orchReplOf)
	inst []drive.InstantObserver // those of obs told of each instant
	err  error
}

// Instant implements drive.InstantObserver: the replication model closes the instant.
func (f *orchFan) Instant(at time.Duration, e fence.View) {
	if f.rr != nil && f.err == nil {
		f.rr.instant(at)
	}
	for _, o := range f.inst {
		o.Instant(at, e)
	}
}

// Event implements drive.Observer.
func (f *orchFan) Event(ev act.Event) {
	if fs, ok := ev.(*act.FaultSet); ok && f.err == nil {
		f.m.Fault(fs.At, fs.Node, fs.Fault)
		if err := f.m.Err(); err != nil {
			line := 0
			for _, e := range f.tl.Events {
				if e.Kind == act.SetFault && e.At == fs.At && e.Node == fs.Node {
					line = e.Line
				}
			}
			f.err = fileline.Errorf(f.tl.File, line, "manager orchestrator: %w", err)
		}
	}
	for _, o := range f.obs {
		o.Event(ev)
	}
	if f.rr != nil && f.err == nil {
		f.rr.event(ev)
	}
}

// RunOrchestrator is failsim replay --manager orchestrator: it replays tl under Orchestrator's
// rules with settings cfg and writes, one line each, the manager and its settings, every
// event (the faults set, the replicas' I/O threads, Orchestrator's checks, analysis codes and
// recoveries, and the replication model's decisions) at its clock time, and a verdict: the
// failovers Orchestrator made and the master's code at the end, then, for a timeline with
// replication, the client's view (report.ClientView; orchRepl).
func RunOrchestrator(w io.Writer, tl *timeline.Timeline, cfg orchestrator.Config) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "manager orchestrator: %s\n", cfg)
	p := &orchPrinter{w: bw, start: tl.Start, names: tl.Names()}
	m, err := ReplayOrchestrator(tl, cfg, p)
	if err != nil {
		bw.Flush()
		return err
	}
	names := tl.Names()
	verdict := "no failover"
	if p.failovers > 0 {
		verdict = fmt.Sprintf("%d failover(s)", p.failovers)
	}
	master := "none"
	if i := m.Master(); i >= 0 {
		master = names[i]
	}
	fmt.Fprintf(bw, "verdict: orchestrator: %s; master %s, %s at the end\n", verdict, master, m.Code())
	for _, l := range p.because() {
		fmt.Fprintf(bw, "  %s\n", l)
	}
	switch {
	case p.final != nil:
		for _, l := range report.ClientView(tl.Start, p.final) {
			fmt.Fprintf(bw, "%s\n", l)
		}
	case tl.Repl != nil:
		fmt.Fprintf(bw, "client's view: not modelled under orchestrator for a timeline with a partition\n")
	}
	return bw.Flush()
}

// orchPrinter writes each event of an Orchestrator run as a line, and keeps what the verdict
// says why: each master's problem codes and the recovery ticks' verdicts on them.
type orchPrinter struct {
	w         *bufio.Writer
	start     time.Time
	names     []string
	line      []byte
	failovers int
	final     *repl.Final // the replication model's summary, told at the end; nil for none
	spells    []orchSpell
}

// orchSpell is a master's analysis code from At to `to` (the master's next code; -1: to the
// end), with what the recovery ticks did about it.
type orchSpell struct {
	orchcore.Analysed
	to        time.Duration
	recovered []string
}

// because says why the run ended as it did, a line per problem code a master was analysed
// with: the code, its span and counts, and the recovery it started or why none.
func (p *orchPrinter) because() []string {
	var out []string
	for _, sp := range p.spells {
		if sp.Code == orchestrator.NoProblem {
			continue
		}
		to := "the end"
		if sp.to >= 0 {
			to = timeline.Clock(p.start, sp.to)
		}
		word := "because"
		if len(out) > 0 {
			word = "then"
		}
		l := fmt.Sprintf("%s %s was %s from %s to %s (replicas %d, read %d, replicating %d, lagging %d)", word, p.names[sp.Master], sp.Code,
			timeline.Clock(p.start, sp.At), to, sp.Replicas, sp.ValidReplicas, sp.ValidReplicating, sp.Lagging)
		switch {
		case len(sp.recovered) > 0:
			l += ": " + strings.Join(sp.recovered, "; ")
		case orchestrator.ActionOf(sp.Code, false) == orchestrator.Detect:
			l += ": a code that starts no recovery (checkAndRecoverGenericProblem, logic/topology_recovery.go:1742-1751)"
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		out = append(out, "because no master's analysis found a problem")
	}
	return out
}

// analysed notes a master's code changing.
func (p *orchPrinter) analysed(ev *orchcore.Analysed) {
	for i := len(p.spells) - 1; i >= 0; i-- {
		if sp := &p.spells[i]; sp.Master == ev.Master {
			sp.to = ev.At
			break
		}
	}
	p.spells = append(p.spells, orchSpell{Analysed: *ev, to: -1})
}

// recovered notes a recovery tick's verdict on the code it was of.
func (p *orchPrinter) recovered(ev *orchcore.Recovered) {
	for i := len(p.spells) - 1; i >= 0; i-- {
		if sp := &p.spells[i]; sp.Master == ev.Failed && sp.Code == ev.Code {
			sp.recovered = append(sp.recovered, orchcore.RecoveryWords(p.names, ev))
			return
		}
	}
}

// Event implements drive.Observer.
func (p *orchPrinter) Event(ev act.Event) {
	if f, ok := ev.(*repl.Final); ok {
		p.final = f // the verdict's, not the log's
		return
	}
	p.line = append(timeline.AppendClock(p.line[:0], p.start, ev.When()), ' ')
	if s, ok := orchcore.Describe(p.names, ev); ok {
		p.line = append(p.line, s...)
	} else {
		p.line = narrate.AppendDescribe(p.line, p.names, ev)
	}
	switch e := ev.(type) {
	case *orchcore.Analysed:
		p.analysed(e)
	case *orchcore.Recovered:
		if e.Verdict == orchestrator.Runs && e.Node >= 0 {
			p.failovers++
		}
		p.recovered(e)
	}
	p.w.Write(append(p.line, '\n'))
}
