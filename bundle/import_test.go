package bundle_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/failsim/failsim/bundle"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/timeline"
)

// imported imports files (name to text, a name with "cctrl" a cctrl output, else a manager
// log) and returns the timeline's statements, comments left out, and the result.
func imported(t *testing.T, files ...string) (string, *bundle.Result) {
	t.Helper()
	var fs []bundle.File
	for i := 0; i < len(files); i += 2 {
		fs = append(fs, bundle.File{Name: files[i], Kind: bundle.Classify(files[i]), Data: []byte(files[i+1])})
	}
	res, err := bundle.Import(fs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := timeline.FormatCommented(res.Timeline, res.Comments)
	if _, err := timeline.Parse("imported.timeline", text); err != nil {
		t.Fatalf("the import does not parse: %v\n%s", err, text)
	}
	var out []string
	for _, l := range strings.Split(string(timeline.Format(res.Timeline)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n"), res
}

func ds(name, role, state, status string) string {
	return name + "(" + role + ":" + state + ", progress=1)\nSTATUS [" + status + "\n"
}

const ok = "OK] [2025/01/24 01:00:00 PM UTC]"

// Two nodes split without a witness: each manager's view is itself alone, non-primary, and
// together they cover the cluster: no primary; each shuns itself, as its own snapshot shows.
// A view of both again heals the network.
func TestImportTwoNodeSplit(t *testing.T) {
	before := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "ONLINE", ok)
	// Each manager's own snapshot after: its datasource shunned, the other's as its copy
	// last had it (stale: noted, not expected).
	after1 := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "SHUNNED(FAILSAFE_SHUN)", "SHUNNED] [2025/01/24 02:31:00 PM UTC]") + ds("db2", "slave", "ONLINE", ok)
	after2 := "COORDINATOR[db2:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "SHUNNED(FAILSAFE_SHUN)", "SHUNNED] [2025/01/24 02:31:00 PM UTC]")
	check := func(who string) string {
		return "2025/01/24 14:30:40 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n2025/01/24 14:30:40 | GC VIEW OF CURRENT DB MEMBERS IS: " + who + "\n2025/01/24 14:30:40 | CONCLUSION: I AM IN A NON-PRIMARY PARTITION OF 1 MEMBERS OUT OF A REQUIRED MAJORITY SIZE OF 2\n"
	}
	healed := "2025/01/24 14:40:00 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n2025/01/24 14:40:00 | GC VIEW OF CURRENT DB MEMBERS IS: db1, db2\n2025/01/24 14:40:00 | CONCLUSION: I AM IN A PRIMARY PARTITION OF 2 DB MEMBERS OUT OF THE REQUIRED MAJORITY OF 2\n"
	got, res := imported(t, "db1/cctrl_ls.txt", before+after1, "db1/tmsvc.log", check("db1")+healed, "db2/cctrl_ls.txt", after2, "db2/tmsvc.log", check("db2"))
	want := `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2025-01-24T14:28:10Z
14:30:10 partition db1 | db2
14:39:50 partition heal
14:41:00 cluster end
expect db1 master at 14:28:18
expect db2 replica at 14:28:18
expect no primary at 14:30:40
expect db1 shunned after 14:28:18 by 14:31:08
expect db2 shunned after 14:28:18 by 14:31:08
expect primary db1 db2 at 14:40:00`
	if got != want {
		t.Errorf("import:\n%s\nwant:\n%s", got, want)
	}
	if len(res.NotImported) != 2 || !strings.HasPrefix(res.NotImported[0].Why, "db2's state in a snapshot whose coordinator db1 had shunned itself") ||
		!strings.HasPrefix(res.NotImported[1].Why, "db1's state in a snapshot whose coordinator db2 had shunned itself") {
		t.Errorf("not imported: %+v", res.NotImported)
	}
}

// A failed replica that comes back: the inferred fault and its heal; a policy that changed
// between snapshots; a FAILED reason that names no STOPPED dataserver, which implies no fault.
func TestImportReplicaBackAndHeal(t *testing.T) {
	s1 := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "ONLINE", ok)
	s2 := "COORDINATOR[db1:MAINTENANCE:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "FAILED(DATASERVER 'db2@alpha' STOPPED)", "CRITICAL] [2025/01/24 02:00:00 PM UTC]")
	s3 := "COORDINATOR[db1:MAINTENANCE:ONLINE]\n" + ds("db1", "master", "FAILED(REPLICATOR STOPPED)", "CRITICAL] [2025/01/24 02:10:00 PM UTC]") + ds("db2", "slave", "ONLINE", "OK] [2025/01/24 02:10:00 PM UTC]")
	got, _ := imported(t, "cctrl_ls.txt", s1+s2+s3)
	want := `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2025-01-24T13:58:00Z
13:58:09 cluster policy maintenance
14:00:00 db2 refuse
14:10:00 db2 heal
14:11:08 cluster end
expect db1 master at 13:58:08
expect db2 replica at 13:58:08
expect db1 master at 14:00:08
expect db2 failed at 14:00:08
expect db1 failed at 14:10:08
expect db2 replica at 14:10:08
expect no master after 14:00:08 by 14:10:08`
	if got != want {
		t.Errorf("import:\n%s\nwant:\n%s", got, want)
	}
}

// What the timeline cannot hold is listed, with its lines: an operator's shun, a state the
// engine does not have, a member the first snapshot lacks, a non-primary view alone.
func TestImportNotImported(t *testing.T) {
	s1 := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "ONLINE", ok) + ds("db3", "slave", "ONLINE", ok)
	s2 := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db2", "slave", "SHUNNED(MANUALLY-SHUNNED)", "SHUNNED] [2025/01/24 02:00:00 PM UTC]") + ds("db3", "slave", "OFFLINE", "OK] [2025/01/24 02:00:00 PM UTC]") + ds("db9", "slave", "ONLINE", ok)
	log := "2025/01/24 14:01:00 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n2025/01/24 14:01:00 | GC VIEW OF CURRENT DB MEMBERS IS: db3\n2025/01/24 14:01:00 | CONCLUSION: I AM IN A NON-PRIMARY PARTITION OF 1 MEMBERS OUT OF A REQUIRED MAJORITY SIZE OF 2\n"
	_, res := imported(t, "cctrl_ls.txt", s1+s2, "db3/tmsvc.log", log, "db3/trepsvc.log", "")
	var got []string
	for _, n := range res.NotImported {
		got = append(got, n.Lines[0].String()+" -- "+n.Why)
	}
	want := []string{
		"cctrl_ls.txt:9: db2(slave:SHUNNED(MANUALLY-SHUNNED), progress=1) -- db2 was shunned by an operator: a timeline has no shun event",
		"cctrl_ls.txt:11: db3(slave:OFFLINE, progress=1) -- db3 is OFFLINE: failsim's engine has no such state",
		"cctrl_ls.txt:13: db9(slave:ONLINE, progress=1) -- a datasource the earliest snapshot does not name: the timeline's cluster is fixed at its start",
		`db3/tmsvc.log:1: 2025/01/24 14:01:00 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS -- the view db3 is not primary, and the bundle has no check of the other side's: a timeline can say "expect primary VIEW" or "expect no primary", not that one view is not primary`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("not imported:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Unread) != 1 || res.Unread[0] != "db3/trepsvc.log" {
		t.Errorf("unread %v", res.Unread)
	}
	tail := strings.Join(res.Comments.Tail, "\n")
	for _, w := range want {
		line, _, _ := strings.Cut(w, " -- ")
		if !strings.Contains(tail, line) {
			t.Errorf("the timeline's tail does not list %q", line)
		}
	}
}

// An active witness: in the cluster line, and in the primary view of the side it makes up.
func TestImportWitness(t *testing.T) {
	s := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "ONLINE", ok) + "w1(witness:ONLINE)\n"
	log := `2025/01/24 14:30:40 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS OR 1 DB MEMBERS PLUS AT LEAST 1 ACTIVE WITNESS
2025/01/24 14:30:40 | GC VIEW OF CURRENT DB MEMBERS IS: db2
2025/01/24 14:30:40 | VALIDATED ACTIVE WITNESS MEMBERS ARE: w1
2025/01/24 14:30:40 | CONCLUSION: I AM IN A PRIMARY PARTITION WITH 1 VALIDATED DB MEMBERS AND 1 VALIDATED ACTIVE WITNESSES
`
	got, _ := imported(t, "cctrl_ls.txt", s, "db2/tmsvc.log", log)
	want := `cluster db1:master db2:replica w1:witness
checker interval=3s timeout=5s
start 2025-01-24T14:28:10Z
14:30:10 partition db1 | db2 w1
14:31:40 cluster end
expect db1 master at 14:28:18
expect db2 replica at 14:28:18
expect primary db2 w1 at 14:30:40`
	if got != want {
		t.Errorf("import:\n%s\nwant:\n%s", got, want)
	}
}

func TestImportErrors(t *testing.T) {
	for _, c := range []struct {
		files []bundle.File
		want  string
	}{
		{[]bundle.File{{Name: "b/tmsvc.log", Kind: bundle.ManagerLog}}, "b/tmsvc.log: no cctrl ls snapshot in the bundle"},
		{[]bundle.File{{Name: "ls.cctrl", Kind: bundle.Cctrl, Data: []byte("COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "slave", "ONLINE", ok))}}, "ls.cctrl:1: the earliest snapshot has 0 masters"},
		{[]bundle.File{{Name: "ls.cctrl", Kind: bundle.Cctrl, Data: []byte("COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db1", "slave", "ONLINE", ok))}}, "ls.cctrl:4: datasource db1 is listed twice in one snapshot"},
		{[]bundle.File{{Name: "ls.cctrl", Kind: bundle.Cctrl, Data: []byte("COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "composite master", "ONLINE", ok))}}, "ls.cctrl:2: datasource db1: role \"composite master\""},
	} {
		_, err := bundle.Import(c.files, bundle.Options{})
		var fe *fileline.Error
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got %v, want a file:line error starting %q", err, c.want)
		}
	}
}

// FuzzImport: whatever the parsers accept imports to a timeline that parses, comments and all.
func FuzzImport(f *testing.F) {
	f.Add([]byte(docStates), []byte("2025/01/24 14:59:00 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n2025/01/24 14:59:00 | GC VIEW OF CURRENT DB MEMBERS IS: db1\n2025/01/24 14:59:00 | CONCLUSION: I AM IN A PRIMARY PARTITION OF 2 DB MEMBERS OUT OF THE REQUIRED MAJORITY OF 2\n"))
	f.Add([]byte("COORDINATOR[db1:AUTOMATIC:ONLINE]\n"+ds("db1", "master", "ONLINE", ok)+ds("w1", "witness", "ONLINE", ok)), []byte(""))
	f.Fuzz(func(t *testing.T, ls, log []byte) {
		res, err := bundle.Import([]bundle.File{{Name: "cctrl_ls.txt", Kind: bundle.Cctrl, Data: ls}, {Name: "tmsvc.log", Kind: bundle.ManagerLog, Data: log}}, bundle.Options{})
		if err != nil {
			var fe *fileline.Error
			if !errors.As(err, &fe) {
				t.Fatalf("not a file:line error: %v", err)
			}
			return
		}
		text := timeline.FormatCommented(res.Timeline, res.Comments)
		if _, err := timeline.Parse("imported.timeline", text); err != nil {
			t.Fatalf("the import does not parse: %v\n%s", err, text)
		}
	})
}

// A master failed over and back as a replica: its fault heals and it is recovered, each event
// with its own comment.
func TestImportRecoveredMaster(t *testing.T) {
	s1 := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "ONLINE", ok)
	s2 := "COORDINATOR[db2:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "SHUNNED(FAILED-OVER AFTER DATASERVER 'db1@alpha' STOPPED)", "SHUNNED] [2025/01/24 02:00:00 PM UTC]") + ds("db2", "master", "ONLINE", "OK] [2025/01/24 02:00:02 PM UTC]")
	s3 := "COORDINATOR[db2:AUTOMATIC:ONLINE]\n" + ds("db1", "slave", "ONLINE", "OK] [2025/01/24 02:20:00 PM UTC]") + ds("db2", "master", "ONLINE", "OK] [2025/01/24 02:00:02 PM UTC]")
	got, res := imported(t, "cctrl_ls.txt", s1+s2+s3)
	want := `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2025-01-24T13:58:00Z
14:00:00 db1 refuse
14:20:00 db1 heal
14:20:00 db1 recover
14:21:08 cluster end
expect db1 master at 13:58:08
expect db2 replica at 13:58:08
expect db1 shunned after 13:58:08 by 14:00:10
expect db2 master at 14:00:10
expect failover of db1 to db2 after 13:58:08 by 14:00:10
expect db1 replica at 14:20:08
expect db2 master at 14:20:08`
	if got != want {
		t.Errorf("import:\n%s\nwant:\n%s", got, want)
	}
	last := func(i int) string { l := res.Comments.Events[i]; return l[len(l)-1] }
	if !strings.HasPrefix(last(1), "inferred: ONLINE again") || !strings.HasPrefix(last(2), "inferred: a shunned datasource comes back only by recover") {
		t.Errorf("comments: %q, %q", last(1), last(2))
	}
}

// A log of a quiet cluster repeats one check: one expectation stands for the run, and the
// head says how many were not written again; a change of view is written.
func TestImportRepeatedChecks(t *testing.T) {
	s := "COORDINATOR[db1:AUTOMATIC:ONLINE]\n" + ds("db1", "master", "ONLINE", ok) + ds("db2", "slave", "ONLINE", ok)
	check := func(at, view, conclusion string) string {
		return "2025/01/24 " + at + " | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n2025/01/24 " + at + " | GC VIEW OF CURRENT DB MEMBERS IS: " + view + "\n2025/01/24 " + at + " | CONCLUSION: " + conclusion + "\n"
	}
	primary := "I AM IN A PRIMARY PARTITION OF 2 DB MEMBERS OUT OF THE REQUIRED MAJORITY OF 2"
	log := check("14:00:00", "db1, db2", primary) + check("14:00:10", "db1, db2", primary) + check("14:00:20", "db2, db1", primary) + check("14:00:30", "db1", "I AM IN A NON-PRIMARY PARTITION OF 1 MEMBERS OUT OF A REQUIRED MAJORITY SIZE OF 2")
	got, res := imported(t, "cctrl_ls.txt", s, "db1/tmsvc.log", log)
	if n := strings.Count(got, "expect primary db1 db2"); n != 1 || res.Repeats != 2 {
		t.Errorf("%d primary expectations, %d repeats, want 1 and 2:\n%s", n, res.Repeats, got)
	}
	if !strings.Contains(got, "14:00:00 partition db1 | db2") {
		t.Errorf("the change of view is not written:\n%s", got)
	}
	if h := res.Comments.Head[len(res.Comments.Head)-1]; !strings.HasPrefix(h, "2 quorum checks repeat") {
		t.Errorf("head %q", h)
	}
}
