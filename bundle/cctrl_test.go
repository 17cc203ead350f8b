package bundle_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/bundle"
	"github.com/failsim/failsim/fileline"
)

// The documentation's lines (operations-status-states, operations-status-changingstates),
// in the bordered table cctrl prints.
const docStates = `[LOGICAL:EXPERT] /alpha > ls
COORDINATOR[db1:AUTOMATIC:ONLINE]
DATASOURCES:
+---------------------------------------------------------------------------------+
|db3(slave:FAILED(DATASERVER 'db3@alpha' STOPPED), progress=3, latency=0.194)     |
|STATUS [CRITICAL] [2025/01/24 02:59:42 PM UTC]                                   |
|REASON[DATASERVER 'db3@alpha' STOPPED]                                           |
+---------------------------------------------------------------------------------+
|  MANAGER(state=ONLINE)                                                          |
|  REPLICATOR(role=slave, master=db1, state=ONLINE)                               |
|  DATASERVER(state=STOPPED)                                                      |
|  CONNECTIONS(created=8, active=0)                                               |
+---------------------------------------------------------------------------------+
|host3(slave:SHUNNED(MANUALLY-SHUNNED), progress=157454, latency=1.000)      |
|STATUS [SHUNNED] [2013/05/14 05:24:41 PM BST]                               |
|  MANAGER(state=ONLINE)                                                     |
|db1(master:ONLINE)                                                          |
|STATUS [DIMINISHED] [2025/01/24 03:23:02 PM UTC]                            |
|REASON[REPLICATOR STOPPED]                                                  |
|  REPLICATOR(state=STOPPED)                                                 |
|db4(master:SHUNNED(FAILSAFE AFTER MANAGER STOPPED), progress=7, THL latency=0.934) |
|STATUS [SHUNNED] [2025/01/28 02:39:41 PM UTC]                               |
|w1(witness:ONLINE)                                                          |
DataSource 'host3' set to SHUNNED
`

func TestParseLsDocumentationLines(t *testing.T) {
	ls, err := bundle.ParseLs("cctrl_ls.txt", []byte(docStates))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Snapshots) != 1 {
		t.Fatalf("%d snapshots, want 1", len(ls.Snapshots))
	}
	s := ls.Snapshots[0]
	if s.Coordinator != "db1" || s.Policy != "AUTOMATIC" || s.Source.Line != 2 {
		t.Errorf("coordinator %q policy %q at line %d", s.Coordinator, s.Policy, s.Source.Line)
	}
	var got []string
	for _, d := range s.Datasources {
		got = append(got, strings.Join([]string{d.Name, d.Role, d.State, d.Reason, d.ShunReason(), d.LastError(), d.Alert, d.Time.Format(time.RFC3339), d.Manager, d.Replicator, d.Dataserver}, "|"))
	}
	want := []string{
		"db3|slave|FAILED|DATASERVER 'db3@alpha' STOPPED||DATASERVER 'db3@alpha' STOPPED|CRITICAL|2025-01-24T14:59:42Z|ONLINE|ONLINE|STOPPED",
		"host3|slave|SHUNNED|MANUALLY-SHUNNED|MANUALLY-SHUNNED||SHUNNED|2013-05-14T16:24:41Z|ONLINE||",
		"db1|master|ONLINE||||DIMINISHED|2025-01-24T15:23:02Z||STOPPED|",
		"db4|master|SHUNNED|FAILSAFE AFTER MANAGER STOPPED|FAILSAFE|MANAGER STOPPED|SHUNNED|2025-01-28T14:39:41Z|||",
		"w1|witness|ONLINE|||||0001-01-01T00:00:00Z|||",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("datasources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The prompt and the "set to SHUNNED" line are not ls output: skipped and counted.
	if ls.Skipped != 2 {
		t.Errorf("skipped %d lines, want 2", ls.Skipped)
	}
	if s.Time().Format(time.RFC3339) != "2025-01-28T14:39:41Z" {
		t.Errorf("snapshot time %s, want the latest STATUS time", s.Time())
	}
}

func TestParseLsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"COORDINATOR[db1:AUTOMATIC]\n", "ls.txt:1: COORDINATOR line \"COORDINATOR[db1:AUTOMATIC]\": want COORDINATOR[HOST:POLICY:STATE]"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\n", "ls.txt:1: a COORDINATOR line with no datasource after it: the output is cut short"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master:ONLINE)\n", "ls.txt:2: datasource db1 has no STATUS line: the output is cut short"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master:ONLINE\n", "ls.txt:2: datasource db1: unbalanced parentheses"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master)\n", "ls.txt:2: datasource db1: want NAME(ROLE:STATE...), got \"db1(master)\""},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master:FAILED(x(y), progress=1)\n", "ls.txt:2: datasource db1: unbalanced parentheses (is the line cut short?)"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master:online)\n", "ls.txt:2: datasource db1: no state after \"master:\""},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master:ONLINE x)\n", "ls.txt:2: datasource db1: unexpected \" x\" after its state"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master:ONLINE)\nSTATUS [OK] [2025/01/24 14:59:42 UTC]\n", "ls.txt:3: STATUS time \"2025/01/24 14:59:42 UTC\": want yyyy/MM/dd hh:mm:ss AM|PM ZONE"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\nSTATUS [OK] [2025/01/24 02:59:42 PM UTC]\n", "ls.txt:2: a STATUS line with no datasource line before it"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\ndb1(master:ONLINE)\nSTATUS [OK] 2025\n", "ls.txt:3: STATUS line \"STATUS [OK] 2025\": want"},
		{"COORDINATOR[db1:AUTOMATIC:ONLINE]\n\xff\n", "ls.txt:2: not UTF-8 text"},
		{"x\n" + strings.Repeat("a", bundle.MaxLine+1) + "\n", "ls.txt:2: line too long"},
	} {
		_, err := bundle.ParseLs("ls.txt", []byte(c.in))
		var fe *fileline.Error
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want a file:line error starting %q", c.in, err, c.want)
		}
	}
}

// A datasource line before any COORDINATOR line is not dropped: it is a note.
func TestParseLsNotesADatasourceOutsideASnapshot(t *testing.T) {
	ls, err := bundle.ParseLs("ls.txt", []byte("db1(master:ONLINE)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Notes) != 1 || ls.Notes[0].Lines[0].Line != 1 || len(ls.Snapshots) != 0 {
		t.Errorf("notes %+v, snapshots %d", ls.Notes, len(ls.Snapshots))
	}
}

func TestParseStatusTime(t *testing.T) {
	for in, want := range map[string]string{
		"2025/01/24 02:59:42 PM UTC": "2025-01-24T14:59:42Z",
		"2025/01/24 12:00:00 AM UTC": "2025-01-24T00:00:00Z",
		"2013/05/14 05:24:41 PM BST": "2013-05-14T16:24:41Z",
		"2015/04/14 02:28:53 AM PDT": "2015-04-14T09:28:53Z",
	} {
		got, err := bundle.ParseStatusTime(in)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("%q: %v %v, want %s", in, got, err, want)
		}
	}
	if _, err := bundle.ParseStatusTime("2025/01/24 02:59:42 PM ACME"); err == nil {
		t.Error("an unknown zone read")
	}
}

// FuzzParseLs: the parser never panics, and a snapshot it returns is whole: every datasource
// but a witness has its STATUS line, after its header.
func FuzzParseLs(f *testing.F) {
	f.Add([]byte(docStates))
	f.Add([]byte("COORDINATOR[db1:AUTOMATIC:ONLINE]\n|db1(master:ONLINE)|\n|STATUS [OK] [2025/01/24 02:59:42 PM UTC]|\n"))
	f.Add([]byte("COORDINATOR[db1:MAINTENANCE:ONLINE]\ndb1(master:SHUNNED(FAILSAFE AFTER (x)), progress=1)\nSTATUS [SHUNNED] [2025/01/24 02:59:42 PM CEST]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ls, err := bundle.ParseLs("f.txt", data)
		if err != nil {
			var fe *fileline.Error
			if !errors.As(err, &fe) {
				t.Fatalf("not a file:line error: %v", err)
			}
			return
		}
		for _, s := range ls.Snapshots {
			if len(s.Datasources) == 0 {
				t.Fatal("a snapshot with no datasource")
			}
			for _, d := range s.Datasources {
				if d.Role != "witness" && (d.Status.Line <= d.Source.Line || d.Time.IsZero()) {
					t.Fatalf("datasource %s: STATUS at line %d, header at %d", d.Name, d.Status.Line, d.Source.Line)
				}
			}
		}
	})
}
