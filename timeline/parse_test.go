package timeline_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"slices"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/propspec"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

func TestParseTimeline(t *testing.T) {
	src := `cluster db1:master db2:replica   # comment
checker interval=2s timeout=4s
statemap ../conf/x.properties
policy manual
start 21:00:00
family benign

21:11:00 db1 stall
+10m     db1 heal
21:30:00 db2 manager down
21:30:00 db2 manager up
21:40:00 cluster policy maintenance
21:45:00 db1 recover
2000-01-01T21:50:00Z db2 slow 1500ms
21:55:00 db2 error 1045
21:56:00 db2 probe query_exec_timeout
22:00:00 cluster end
expect no failover
expect failover of db1 to db2 after 21:12:00 by 21:13:00
expect db1 failed after 21:12:00
expect db2 never failed
expect db1 timeout at 21:15:00
expect db2 master at 21:30:00
expect no master after 21:12:00 by 21:13:00
`
	tl, err := timeline.Parse("dir/inc.timeline", []byte(strings.Replace(src, "start 21:00:00", "start 2000-01-01T21:00:00Z", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Interval != 2*time.Second || tl.Timeout != 4*time.Second || tl.Policy != fence.Manual || tl.Statemap != "conf/x.properties" || tl.StatemapLine != 3 || tl.Family != "benign" {
		t.Errorf("settings %+v", tl)
	}
	if len(tl.Nodes) != 2 || tl.Nodes[0] != (fence.NodeConfig{Name: "db1", Role: fence.Master}) {
		t.Errorf("nodes %+v", tl.Nodes)
	}
	want := []struct {
		at   time.Duration
		kind timeline.EventKind
	}{
		{11 * time.Minute, timeline.SetFault}, {21 * time.Minute, timeline.SetFault}, {30 * time.Minute, timeline.ManagerDown},
		{30 * time.Minute, timeline.ManagerUp}, {40 * time.Minute, timeline.SetPolicy}, {45 * time.Minute, timeline.Recover},
		{50 * time.Minute, timeline.SetFault}, {55 * time.Minute, timeline.SetFault}, {56 * time.Minute, timeline.SetFault}, {time.Hour, timeline.End},
	}
	if len(tl.Events) != len(want) {
		t.Fatalf("events %+v", tl.Events)
	}
	for i, w := range want {
		if ev := tl.Events[i]; ev.At != w.at || ev.Kind != w.kind {
			t.Errorf("event %d = %v %v, want %v %v", i, ev.At, ev.Kind, w.at, w.kind)
		}
	}
	if f := tl.Events[6].Fault; f.Kind != fault.Slow || f.Delay != 1500*time.Millisecond {
		t.Errorf("slow %+v", f)
	}
	if tl.End != time.Hour {
		t.Errorf("end %v", tl.End)
	}
	// The expectations are data: what each states, with its line and words.
	m := time.Minute
	wantX := []timeline.Expect{
		{Line: 18, Text: "expect no failover", Kind: timeline.ExpectNoFailover, Node: -1, To: -1},
		{Line: 19, Text: "expect failover of db1 to db2 after 21:12:00 by 21:13:00", Kind: timeline.ExpectFailover, Node: 0, To: 1,
			Window: timeline.Window{After: 12 * m, By: 13 * m, HasAfter: true, HasBy: true}},
		{Line: 20, Text: "expect db1 failed after 21:12:00", Kind: timeline.ExpectFailed, Node: 0, To: -1, Window: timeline.Window{After: 12 * m, HasAfter: true}},
		{Line: 21, Text: "expect db2 never failed", Kind: timeline.ExpectNeverFailed, Node: 1, To: -1},
		{Line: 22, Text: "expect db1 timeout at 21:15:00", Kind: timeline.ExpectAt, Node: 0, To: -1, At: 15 * m, Want: "timeout"},
		{Line: 23, Text: "expect db2 master at 21:30:00", Kind: timeline.ExpectAt, Node: 1, To: -1, At: 30 * m, Want: "master"},
		{Line: 24, Text: "expect no master after 21:12:00 by 21:13:00", Kind: timeline.ExpectNoMaster, Node: -1, To: -1,
			Window: timeline.Window{After: 12 * m, By: 13 * m, HasAfter: true, HasBy: true}},
	}
	if len(tl.Expects) != len(wantX) {
		t.Fatalf("%d expects, want %d", len(tl.Expects), len(wantX))
	}
	for i, w := range wantX {
		if !reflect.DeepEqual(tl.Expects[i], w) {
			t.Errorf("expect %d:\n got  %+v\n want %+v", i, tl.Expects[i], w)
		}
	}
	if got := tl.Checkpoints(); !slices.Equal(got, []time.Duration{12 * m, 15 * m, 30 * m}) {
		t.Errorf("checkpoints %v", got)
	}
	p, err := timeline.Parse("p.timeline", []byte("cluster a:master\nexpect property detects-death-within=90s\nexpect property single-master\nexpect no master\n"))
	if err != nil {
		t.Fatal(err)
	}
	if x := p.Expects[0]; x.Kind != timeline.ExpectProperty || x.Property != (propspec.Spec{Name: propspec.DetectsDeathWithin, Arg: "90s"}) || x.Text != "expect property detects-death-within=90s" {
		t.Errorf("property %+v", x)
	}
	if got := p.Checkpoints(); !slices.Equal(got, []time.Duration{0}) {
		t.Errorf("no master with no window: checkpoints %v, want [0]", got)
	}
}

// TestParseManager: the manager statement names the manager and its config, resolved against
// the timeline's folder.
func TestParseManager(t *testing.T) {
	tl, err := timeline.Parse("dir/t.timeline", []byte("cluster db1:master db2:replica w1:witness\nmanager orchestrator near w1 config o.json\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Manager != "orchestrator" || tl.ManagerConfig != filepath.Join("dir", "o.json") || tl.ManagerLine != 2 || tl.ManagerNear != "w1" {
		t.Errorf("manager %q config %q line %d", tl.Manager, tl.ManagerConfig, tl.ManagerLine)
	}
	tl, err = timeline.Parse("t.timeline", []byte("cluster db1:master db2:replica\n"))
	if err != nil || tl.Manager != "" || tl.ManagerConfig != "" {
		t.Errorf("no statement: %q %q %v", tl.Manager, tl.ManagerConfig, err)
	}
}

// TestParsePerNode: promotion rules and data centres, per node in cluster order.
func TestParsePerNode(t *testing.T) {
	tl, err := timeline.Parse("t.timeline", []byte("cluster db1:master db2:replica db3:replica\npromotion db3=must_not db2=prefer\ndatacenter db1=east db3=west\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tl.Promotion, ",") != ",prefer,must_not" || strings.Join(tl.DataCenters, ",") != "east,,west" {
		t.Errorf("promotion %q, datacenters %q", tl.Promotion, tl.DataCenters)
	}
}

func TestDefaultEnd(t *testing.T) {
	tl, err := timeline.Parse("t", []byte("cluster a:master\n00:05:00 a freeze\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tl.End != 15*time.Minute || tl.Interval != timeline.DefaultInterval || tl.Timeout != timeline.DefaultTimeout {
		t.Errorf("%+v", tl)
	}
}

// Every timeline error names the file and line and what was expected.
func TestTimelineErrors(t *testing.T) {
	c2 := "cluster db1:master db2:replica\n"
	for _, c := range []struct{ in, want string }{
		{"", "t.timeline: empty timeline: want a first statement \"cluster NODE:ROLE ...\""},
		{"# only a comment\n00:00:01 db1 freeze\n", "t.timeline:2: the first statement must be \"cluster NODE:ROLE ...\", got \"00:00:01\""},
		{"cluster\n", "t.timeline:1: cluster names no node"},
		{"cluster db1\n", "t.timeline:1: node \"db1\": want NAME:master, NAME:replica or NAME:witness"},
		{"cluster 1db:master\n", "t.timeline:1: node name \"1db\": want a letter"},
		{"cluster cluster:master\n", "t.timeline:1: node name \"cluster\""},
		{"cluster db1:master db1:replica\n", "t.timeline:1: node \"db1\" is named twice"},
		{"cluster db1:primary\n", "t.timeline:1: node \"db1\": role \"primary\": want master, replica or witness"},
		{"cluster db1:replica\n", "t.timeline:1: cluster has 0 masters: want exactly one"},
		{"cluster db1:master db2:master\n", "t.timeline:1: cluster has 2 masters: want exactly one"},
		{c2 + "cluster db3:master\n", "t.timeline:2: a second cluster statement"},
		{c2 + "checker\n", "t.timeline:2: checker sets nothing"},
		{c2 + "checker period=3s\n", "t.timeline:2: checker setting \"period=3s\": want interval=DURATION or timeout=DURATION"},
		{c2 + "checker timeout=0s\n", "t.timeline:2: checker timeout: \"0s\" is not a positive duration such as 3s"},
		{c2 + "statemap\n", "t.timeline:2: statemap takes one path, relative to this file"},
		{c2 + "policy\n", "t.timeline:2: policy takes one mode: automatic, manual or maintenance"},
		{c2 + "policy lazy\n", "t.timeline:2: policy \"lazy\": want automatic, manual or maintenance"},
		{c2 + "start\n", "t.timeline:2: start takes one time: HH:MM:SS or an RFC 3339 time"},
		{c2 + "start noon\n", "t.timeline:2: start \"noon\": want HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z"},
		{c2 + "policy manual\npolicy automatic\n", "t.timeline:3: \"policy\" is already set at line 2"},
		{c2 + "manager\n", "t.timeline:2: manager names none: want \"manager tungsten\" or \"manager orchestrator [config FILE] [near MEMBER]\""},
		{c2 + "manager orchestrator near db9\n", "t.timeline:2: manager orchestrator near \"db9\": the cluster has db1, db2"},
		{c2 + "manager orchestrator near db1 near db2\n", "t.timeline:2: manager orchestrator: near is given twice"},
		{c2 + "manager orchestrator config a config b\n", "t.timeline:2: manager orchestrator: config is given twice"},
		{c2 + "manager orchestrator near\n", "t.timeline:2: manager orchestrator: \"near\": want"},
		{c2 + "manager mha\n", "t.timeline:2: manager \"mha\": failsim knows tungsten and orchestrator; want"},
		{c2 + "manager tungsten config x.json\n", "t.timeline:2: manager tungsten takes no config: its settings are the statemap's (\"statemap FILE\")"},
		{c2 + "manager orchestrator conf x.json\n", "t.timeline:2: manager orchestrator: \"conf x.json\": want"},
		{c2 + "manager orchestrator\nmanager tungsten\n", "t.timeline:3: \"manager\" is already set at line 2"},
		{c2 + "promotion db2=maybe\n", "t.timeline:2: promotion db2: \"maybe\" is no promotion rule: want must, prefer, neutral, prefer_not or must_not"},
		{c2 + "promotion db2\n", "t.timeline:2: promotion \"db2\": want \"promotion db1=prefer db2=must_not\""},
		{c2 + "promotion\n", "t.timeline:2: promotion sets nothing: want"},
		{c2 + "promotion db9=prefer\n", "t.timeline:2: unknown node \"db9\": the cluster has db1, db2"},
		{c2 + "promotion db2=prefer db2=must\n", "t.timeline:2: promotion: db2 is set twice"},
		{"cluster db1:master db2:replica w1:witness\npromotion w1=prefer\n", "t.timeline:2: promotion w1=prefer: w1 is a witness, a manager with no database, which no manager promotes"},
		{c2 + "datacenter db1\n", "t.timeline:2: datacenter \"db1\": want \"datacenter db1=east db2=west\""},
		{c2 + "00:00:01 db1 freeze\npolicy manual\n", "t.timeline:3: \"policy\" must come before the first event"},
		{c2 + "freeze db1\n", "t.timeline:2: unknown statement \"freeze\": want cluster, checker, statemap, policy, start, family, workload, replication, liveness, manager, promotion, datacenter, expect, or an event \"TIME NODE FAULT\""},
		{c2 + "25:00:00 db1 freeze\n", "t.timeline:2: time \"25:00:00\": want HH:MM:SS, +DURATION or an RFC 3339 time"},
		{c2 + "start 10:00:00\n09:00:00 db1 freeze\n", "t.timeline:3: time 09:00:00 is before the start 10:00:00"},
		{c2 + "+ten db1 freeze\n", "t.timeline:2: \"+ten\": want +DURATION such as +10m or +90s"},
		{c2 + "00:02:00 db1 freeze\n00:01:00 db1 heal\n", "t.timeline:3: events must not go back in time: 00:01:00 is before the previous event at 00:02:00"},
		// HH:MM:SS is on the start's day: past midnight, the hint writes the next day's time.
		{c2 + "23:59:00 db1 freeze\n00:01:00 db1 heal\n", "t.timeline:3: events must not go back in time: 00:01:00 is before the previous event at 23:59:00; HH:MM:SS is on the start's day: after midnight write a full RFC 3339 time, 1970-01-02T00:01:00Z, or +2m0s after the previous event"},
		{c2 + "start 2024-05-01T23:50:00Z\n23:59:00 db1 freeze\nexpect db1 failed by 00:05:00\n", "t.timeline:4: time 00:05:00 is before the start 23:50:00; HH:MM:SS is on the start's day: after midnight write a full RFC 3339 time, 2024-05-02T00:05:00Z"},
		{c2 + "start 2024-05-01T23:50:00+02:00\n00:10:00 db1 freeze\n", "t.timeline:3: time 00:10:00 is before the start 23:50:00; HH:MM:SS is on the start's day: after midnight write a full RFC 3339 time, 2024-05-02T00:10:00+02:00"},
		{c2 + "checker interval=25h\n", "t.timeline:2: checker interval: 25h is longer than 24h0m0s"},
		{c2 + "family\n", "t.timeline:2: family takes the failsim check family the trace was generated in: benign, fatal, mixed or partition"},
		{c2 + "family kind\n", "t.timeline:2: family takes the failsim check family the trace was generated in: benign, fatal, mixed or partition"},
		{c2 + "family benign\nfamily fatal\n", "t.timeline:3: \"family\" is already set at line 2"},
		{c2 + "start 0001-01-01T00:00:00Z\n9999-01-01T00:00:00Z cluster end\n", "t.timeline:3: time 9999-01-01T00:00:00Z is more than the 290 years a timeline may span from its start"},
		{c2 + "start 2000-01-01T00:00:00Z\n2290-01-02T00:00:00Z cluster end\n", "t.timeline:3: time 2290-01-02T00:00:00Z is more than the 290 years"},
		{c2 + "+2562047h db1 freeze\n", "t.timeline:2: +2562047h after the previous event at 00:00:00 is more than the 290 years a timeline may span from its start"},
		{c2 + "+2000000h db1 freeze\n+2000000h db1 heal\n", "t.timeline:3: +2000000h after the previous event at 2198-02-27T08:00:00 is more than the 290 years"},
		{c2 + "+2542087h45m db1 freeze\n", "t.timeline:2: the replay would end 10m0s after this last event, past the 290 years a timeline may span from its start: end the timeline with \"cluster end\""},
		{c2 + "expect no master soon\n", "t.timeline:2: no master: want \"expect no master [after TIME] [by TIME]\""},
		{c2 + "expect no master after 00:05:00 by 00:04:00\n", "t.timeline:2: \"by\" 00:04:00 is before \"after\""},
		{c2 + "00:02:00 db1\n", "t.timeline:2: event \"00:02:00 db1\": want \"TIME NODE FAULT [ARG]\", \"TIME NODE manager down|up\""},
		{c2 + "00:02:00 db9 freeze\n", "t.timeline:2: unknown node \"db9\": the cluster has db1, db2"},
		{c2 + "00:02:00 db1 melt\n", "t.timeline:2: unknown fault \"melt\": want one of heal, refuse"},
		{c2 + "00:02:00 db1 melt\n", "t.timeline:2: unknown fault \"melt\": want one of heal, refuse, reset, close, freeze, blackhole, stall, slow, delay, error, latency, bandwidth, slow-close, timeout, reset-peer, slicer, limit-data, unreachable, hostdown, probe, or \"db1 manager down|up\", \"db1 host down|up\", \"db1 recover\", \"db1 lag DURATION\", \"db1 apply-lag DURATION\", \"db1 link freeze|heal\" or \"db1 replicator stop|start\""},
		{c2 + "00:02:00 db1 freez\n", "t.timeline:2: unknown fault \"freez\" (did you mean freeze?): want one of heal, refuse"},
		{c2 + "00:02:00 db1 Stall\n", "t.timeline:2: unknown fault \"Stall\" (did you mean stall?)"},
		{c2 + "00:02:00 db1 blakhole\n", "t.timeline:2: unknown fault \"blakhole\" (did you mean blackhole?)"},
		{c2 + "00:02:00 db2 manger down\n", "t.timeline:2: unknown fault \"manger\" (did you mean manager?)"},
		{c2 + "00:02:00 db2 replicatr stop\n", "t.timeline:2: unknown fault \"replicatr\" (did you mean replicator?)"},
		{c2 + "chcker interval=3s\n", "t.timeline:2: unknown statement \"chcker\" (did you mean checker?): want cluster, checker"},
		{c2 + "expct no failover\n", "t.timeline:2: unknown statement \"expct\" (did you mean expect?)"},
		{c2 + "00:02:00 db1 slow\n", "t.timeline:2: slow takes one duration, e.g. \"slow 2s\""},
		{c2 + "00:02:00 db1 slow fast\n", "t.timeline:2: slow: \"fast\" is not a positive duration such as 2s or 1500ms"},
		{c2 + "00:02:00 db1 error\n", "t.timeline:2: error takes one MySQL error code, e.g. \"error 1040\""},
		{c2 + "00:02:00 db1 error 0\n", "t.timeline:2: error: \"0\" is not a MySQL error code (1-65535)"},
		{c2 + "00:02:00 db1 probe\n", "t.timeline:2: probe takes one condition name, e.g. \"probe mysql_error\""},
		{c2 + "00:02:00 db1 probe mysql_eror\n", "t.timeline:2: probe: unknown condition \"mysql_eror\" (did you mean mysql_error?)"},
		{c2 + "00:02:00 db1 freeze now\n", "t.timeline:2: freeze takes no argument, got \"now\""},
		{c2 + "00:02:00 db1 manager sideways\n", "t.timeline:2: want \"db1 manager down\" or \"db1 manager up\""},
		{c2 + "00:02:00 db1 recover now\n", "t.timeline:2: recover takes no argument"},
		{c2 + "00:02:00 cluster policy lazy\n", "t.timeline:2: policy \"lazy\": want automatic, manual or maintenance"},
		{c2 + "00:02:00 cluster explode\n", "t.timeline:2: cluster event \"explode\": want \"cluster policy MODE\" or \"cluster end\""},
		{c2 + "00:02:00 cluster explode now\n", "t.timeline:2: cluster event \"explode now\": want \"cluster policy MODE\" or \"cluster end\""},
		{c2 + "00:02:00 cluster end\n00:03:00 db1 heal\n", "t.timeline:3: event after \"cluster end\""},
		{c2 + "expect\n", "t.timeline:2: expect what?"},
		{c2 + "expect failover of\n", "t.timeline:2: failover: \"of\" needs a value"},
		{c2 + "expect failover of db9\n", "t.timeline:2: unknown node \"db9\": the cluster has db1, db2"},
		{c2 + "expect failover soon please\n", "t.timeline:2: failover: unknown word \"soon\": want of, to, after or by"},
		{c2 + "expect failover after 00:05:00 by 00:04:00\n", "t.timeline:2: \"by\" 00:04:00 is before \"after\""},
		{c2 + "expect db9 failed\n", "t.timeline:2: expect \"db9\": not a node of the cluster (db1, db2)"},
		{c2 + "expect db1 failed soon\n", "t.timeline:2: failed: want \"expect db1 failed [after TIME] [by TIME]\""},
		{c2 + "expect db1 happy at 00:01:00\n", "t.timeline:2: \"happy\" is neither a state (online stopped timeout suspect unknown) nor a role (master replica failed)"},
		{c2 + "expect db1 online at noon\n", "t.timeline:2: time \"noon\": want HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z"},
		{c2 + "expect db1 online at +10m\n", "t.timeline:2: time \"+10m\": want HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z (only an event's time may be +DURATION)"},
		{c2 + "expect failover by 25:00:00\n", "t.timeline:2: time \"25:00:00\": want HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z"},
		{c2 + "expect db1 failed after +1m\n", "t.timeline:2: time \"+1m\": want HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z (only an event's time may be +DURATION)"},
		{c2 + "start +10m\n", "t.timeline:2: start \"+10m\": want HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z"},
		{c2 + "expect db1 dances\n", "t.timeline:2: expect db1 dances: want \"expect no failover\""},
		{c2 + "00:00:01 db1 \xff\n", "t.timeline:2: not UTF-8 text"},
	} {
		_, err := timeline.Parse("t.timeline", []byte(c.in))
		var pe *fileline.Error
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("timeline.Parse(%q):\n got  %v\n want %s", c.in, err, c.want)
		}
	}
}

// FuzzParseTimeline: no input panics; what parses replays without panicking, whatever its span.
func FuzzParseTimeline(f *testing.F) {
	f.Add([]byte("cluster db1:master db2:replica\n00:00:01 db1 freeze\n+1m db1 heal\nexpect no failover\n"))
	f.Add([]byte("cluster a:master b:replica\ncheck interval=1s timeout=1s\nstart 23:59:59\n+2s a slow 1ms\n+0s b manager down\n+1s cluster policy manual\nexpect a online at 2000-01-01T00:00:00Z\n"))
	f.Add([]byte("cluster a:master\n00:00:00 a probe socket_io_error\n00:00:00 a recover\n00:01:00 cluster end\nexpect failover of a to a after 00:00:00 by 00:00:01\n"))
	f.Add([]byte("cluster a:master b:replica\nfamily benign\n00:00:00 a stall\n+1m b refuse\nexpect property no-false-failover\nexpect no master after 00:00:30\n"))
	f.Add([]byte("cluster a:master b:replica\nfamily fatal\nstart 0001-01-01T00:00:00Z\n0200-01-01T00:00:00Z a refuse\nexpect property detects-death-within=60s\nexpect property no-false-failover\n"))
	f.Add([]byte("cluster a:master b:replica c:replica w:witness\nliveness gap-threshold=1 failsafe-threshold=2\n00:00:05 partition a | b c w\n+1m partition heal\n+1m b host down\n+1s w host down\n+1s w manager up\n+1m b host up\nexpect a shunned by 00:01:00\nexpect split-brain at most 20s\nexpect primary b c w at 00:01:00\nexpect no primary at 00:00:20\n"))
	f.Add([]byte("cluster a:master b:replica\n00:00:05 partition a | b\n00:00:05 a manager down\n+5m partition heal\nexpect no split-brain\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := timeline.Parse("fuzz.timeline", data)
		if err != nil {
			var pe *fileline.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error without a file: %v", err)
			}
			return
		}
		// Any span: a replay's cost follows its changes, not its length.
		m := statemap.Default()
		xs := expect.NewSet(tl, m)
		sim.Replay(tl, m, report.New(tl, m), xs)
		xs.Results()
	})
}

func TestPropertyErrors(t *testing.T) {
	c2 := "cluster db1:master db2:replica\n"
	for _, c := range []struct{ in, want string }{
		{c2 + "expect property\n", "t.timeline:2: expect property: which? want one of no-false-failover, detects-death-within, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets, max-outage, no-acked-write-lost, no-split-brain, no-fence-without-quorum, minority-shuns-within, majority-keeps-writer-within"},
		{c2 + "expect property split-brain\n", `t.timeline:2: unknown property "split-brain": want one of no-false-failover, detects-death-within`},
		{c2 + "expect property single-master now\n", `t.timeline:2: single-master takes no argument, got "now"`},
		{c2 + "expect property detects-death-within soon\n", `t.timeline:2: detects-death-within: "soon" is not a positive duration such as 90s or 2m`},
		{c2 + "expect property detects-death-within 1m 2m\n", `t.timeline:2: detects-death-within takes at most one duration, got "1m 2m"`},
		{c2 + "expect property detects-death-within=1m 2m\n", `t.timeline:2: detects-death-within takes at most one duration, got "1m 2m"`},
		{c2 + "expect property detects-death-within=soon\n", `t.timeline:2: detects-death-within: "soon" is not a positive duration such as 90s or 2m`},
		{c2 + "expect property single-master=3\n", `t.timeline:2: single-master takes no argument, got "3"`},
	} {
		_, err := timeline.Parse("t.timeline", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
}

// The managers as a group: witnesses, liveness, partitions, host events and the group's
// expectations parse into the timeline's data.
func TestParseGroup(t *testing.T) {
	tl, err := timeline.Parse("g.timeline", []byte(`cluster db1:master w1:witness db2:replica db3:replica
liveness gap-threshold=2 failsafe-threshold=4
10:00:05 partition db1 w1 | db2 db3
10:04:00 partition heal
10:05:00 db2 host down
10:06:00 w1 host down
10:06:00 w1 manager up
10:07:00 db2 host up
expect db1 shunned after 10:00:30 by 10:01:00
expect split-brain at most 20s
expect no split-brain
expect primary w1 db2 at 10:01:00
expect no primary at 10:02:00
`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tl.Witnesses, []string{"w1"}) || !slices.Equal(tl.Names(), []string{"db1", "db2", "db3", "w1"}) || len(tl.Nodes) != 3 {
		t.Fatalf("witnesses %v, names %v", tl.Witnesses, tl.Names())
	}
	if tl.GapThreshold != 2 || tl.FailsafeThreshold != 4 || tl.Group != 1 {
		t.Fatalf("liveness %d %d, group line %d", tl.GapThreshold, tl.FailsafeThreshold, tl.Group)
	}
	evs := tl.Events
	if evs[0].Kind != timeline.Partition || !slices.Equal(evs[0].Segments, []int{0, 1, 1, 0}) {
		t.Errorf("partition %+v", evs[0])
	}
	if evs[1].Kind != timeline.Partition || evs[1].Segments != nil {
		t.Errorf("heal %+v", evs[1])
	}
	if evs[0].ManagersOnly || evs[1].ManagersOnly {
		t.Errorf("a partition of the whole network read as the managers' only: %+v", evs[:2])
	}
	if evs[2].Kind != timeline.HostDown || evs[2].Node != 1 || evs[3].Kind != timeline.HostDown || evs[3].Node != 3 || evs[4].Kind != timeline.ManagerUp || evs[4].Node != 3 || evs[5].Kind != timeline.HostUp {
		t.Errorf("host and witness events %+v", evs[2:])
	}
	x := tl.Expects
	if x[0].Kind != timeline.ExpectShunned || x[0].Node != 0 || !x[0].Window.HasBy {
		t.Errorf("shunned %+v", x[0])
	}
	if x[1].Kind != timeline.ExpectSplitBrain || x[1].Max != 20*time.Second || x[2].Kind != timeline.ExpectSplitBrain || x[2].Max != 0 {
		t.Errorf("split-brain %+v %+v", x[1], x[2])
	}
	if x[3].Kind != timeline.ExpectPrimary || !slices.Equal(x[3].Members, []int{1, 3}) || x[4].Members != nil {
		t.Errorf("primary %+v %+v", x[3], x[4])
	}
	if got := tl.Checkpoints(); !slices.Equal(got, []time.Duration{36060 * time.Second, 36120 * time.Second}) {
		t.Errorf("checkpoints %v", got)
	}
}

// Every error about the group names the file and line.
func TestGroupErrors(t *testing.T) {
	c := "cluster db1:master db2:replica db3:replica w1:witness\n"
	for _, tc := range []struct{ in, want string }{
		{"cluster partition:master\n", "t.timeline:1: node name \"partition\""},
		{"cluster w1:witness\n", "t.timeline:1: cluster has 0 masters: want exactly one"},
		{c + "liveness\n", "t.timeline:2: liveness sets nothing"},
		{c + "liveness gap=3\n", "t.timeline:2: liveness setting \"gap=3\": want gap-threshold=TICKS or failsafe-threshold=TICKS"},
		{c + "liveness failsafe-threshold=1001\n", "t.timeline:2: liveness failsafe-threshold: \"1001\" is not a number of ticks from 1 to 1000"},
		{c + "liveness gap-threshold=2\nliveness gap-threshold=3\n", "t.timeline:3: \"liveness\" is already set at line 2"},
		{c + "10:00:00 db1 freeze\nliveness gap-threshold=2\n", "t.timeline:3: \"liveness\" must come before the first event"},
		{c + "10:00:00 partition db1 | db2 db3\n", "t.timeline:2: partition: w1 is in no group: name every member once"},
		{c + "10:00:00 partition db1 db2 db3 w1\n", "t.timeline:2: partition: one group, no \"|\": that cuts nothing; want \"TIME partition A B | C D\""},
		{c + "10:00:00 partition db2 w1 db1 db3\n", "t.timeline:2: partition: one group, no \"|\""},
		{c + "10:00:00 partition db1 | db1 db2 db3 w1\n", "t.timeline:2: partition: db1 is in two groups"},
		{c + "10:00:00 partition db1 | | db2 db3 w1\n", "t.timeline:2: partition: an empty group"},
		{c + "10:00:00 partition db1 db2 db3 w1 |\n", "t.timeline:2: partition: an empty group"},
		{c + "10:00:00 partition db1 | db2 db3 w9\n", "t.timeline:2: partition: unknown member \"w9\": the cluster has db1, db2, db3, w1"},
		{c + "10:00:00 partition now please\n", "t.timeline:2: partition: unknown member \"now\""},
		{c + "10:00:00 partition managers heal\n", "t.timeline:2: partition managers heal: a heal heals the whole network"},
		{c + "10:00:00 partition managers\n", "t.timeline:2: partition of nothing"},
		{c + "10:00:00 partition managers db1 db2 db3 w1\n", "t.timeline:2: partition: one group, no \"|\""},
		{c + "10:00:00 w1 freeze\n", "t.timeline:2: w1 is a witness: a manager with no database"},
		{c + "10:00:00 w1 recover\n", "t.timeline:2: w1 is a witness: a manager with no database"},
		{c + "10:00:00 db1 host\n", "t.timeline:2: want \"db1 host down\" or \"db1 host up\""},
		{c + "expect w1 shunned\n", "t.timeline:2: expect \"w1\": not a node of the cluster"},
		{c + "expect db1 shunned soon\n", "t.timeline:2: shunned: want \"expect db1 shunned [after TIME] [by TIME]\""},
		{c + "expect split-brain\n", "t.timeline:2: split-brain: want \"expect split-brain at most DURATION\" or \"expect no split-brain\""},
		{c + "expect split-brain at most long\n", "t.timeline:2: split-brain at most: \"long\" is not a duration such as 20s"},
		{c + "expect primary at 10:00:00\n", "t.timeline:2: primary: which members?"},
		{c + "expect primary db1 db9 at 10:00:00\n", "t.timeline:2: primary: unknown member \"db9\""},
		{c + "expect primary db1 db1 at 10:00:00\n", "t.timeline:2: primary: db1 is named twice"},
		{c + "expect primary db1 db2\n", "t.timeline:2: primary: want \"expect primary MEMBER... at TIME\" or \"expect no primary at TIME\""},
		{c + "expect no primary db1 at 10:00:00\n", "t.timeline:2: primary: want"},
		{c + "expect no primary at noon\n", "t.timeline:2: time \"noon\": want HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z"},
	} {
		_, err := timeline.Parse("t.timeline", []byte(tc.in))
		var pe *fileline.Error
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("timeline.Parse(%q):\n got  %v\n want %s", tc.in, err, tc.want)
		}
	}
}

// A leading UTF-8 byte order mark, which some editors write, is skipped: the first statement
// is still "cluster", and lines count as before.
func TestByteOrderMark(t *testing.T) {
	const bom = "\ufeff"
	tl, err := timeline.Parse("t.timeline", []byte(bom+"cluster db1:master db2:replica\n00:00:10 db1 freeze\n"))
	if err != nil || len(tl.Events) != 1 {
		t.Fatalf("with a BOM: %+v, %v", tl, err)
	}
	_, err = timeline.Parse("t.timeline", []byte(bom+"cluster db1:master\n00:00:10 db1 melt\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "t.timeline:2: unknown fault \"melt\"") {
		t.Errorf("with a BOM: %v, want the error at line 2", err)
	}
	// Only a leading one: elsewhere it is a character like any other.
	_, err = timeline.Parse("t.timeline", []byte("cluster db1:master\n"+bom+"00:00:10 db1 freeze\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "t.timeline:2: ") {
		t.Errorf("a BOM on line 2: %v, want an error at line 2", err)
	}
}

// TestParseManagersPartition: "partition managers" splits the managers' network only; a member
// named "managers" keeps the word its name.
func TestParseManagersPartition(t *testing.T) {
	tl, err := timeline.Parse("m.timeline", []byte("cluster db1:master db2:replica w1:witness\n10:00:05 partition managers db1 | db2 w1\n10:01:00 partition heal\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := tl.Events[0]; e.Kind != timeline.Partition || !e.ManagersOnly || !slices.Equal(e.Segments, []int{0, 1, 1}) {
		t.Errorf("managers' partition %+v", e)
	}
	if e := tl.Events[1]; e.Kind != timeline.Partition || e.ManagersOnly || e.Segments != nil {
		t.Errorf("heal %+v", e)
	}
	tl, err = timeline.Parse("n.timeline", []byte("cluster managers:master db2:replica\n10:00:05 partition managers | db2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := tl.Events[0]; e.ManagersOnly || !slices.Equal(e.Segments, []int{0, 1}) {
		t.Errorf("a member named managers: %+v", e)
	}
}
