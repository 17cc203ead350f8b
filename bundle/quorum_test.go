package bundle_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/bundle"
	"github.com/failsim/failsim/fileline"
)

// The documentation's quorum block (manager-failover-failsafe-shun), verbatim in
// testdata/failsafe-shun/db1/tmsvc.log.
func TestParseQuorumDocumentationBlock(t *testing.T) {
	data, err := os.ReadFile("testdata/failsafe-shun/db1/tmsvc.log")
	if err != nil {
		t.Fatal(err)
	}
	log, err := bundle.ParseQuorum("tmsvc.log", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Checks) != 1 {
		t.Fatalf("%d checks, want 1", len(log.Checks))
	}
	c := log.Checks[0]
	got := strings.Join([]string{c.Time.Format(time.RFC3339), strings.Join(c.QuorumSet, ","), strings.Join(c.View, ","), strings.Join(c.Validated, ","), strings.Join(c.Reachable, ",")}, " ")
	if want := "2025-02-02T23:12:36Z db1,db3,db2 db1 db1 db1"; got != want {
		t.Errorf("check %q, want %q", got, want)
	}
	if c.Primary || c.Majority != 2 || c.Start.Line != 3 || c.Conclusion.Line != 10 || len(c.Lines) != 8 {
		t.Errorf("primary %v majority %d start %d conclusion %d lines %d", c.Primary, c.Majority, c.Start.Line, c.Conclusion.Line, len(c.Lines))
	}
	// The heartbeat line before the check and the witness line after its conclusion.
	if log.Skipped != 3 {
		t.Errorf("skipped %d, want 3", log.Skipped)
	}
}

// The source's primary conclusion and its active witnesses' lines.
func TestParseQuorumPrimaryWithWitness(t *testing.T) {
	in := `2025/02/02 23:12:36 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS OR 1 DB MEMBERS PLUS AT LEAST 1 ACTIVE WITNESS
2025/02/02 23:12:36 | QUORUM SET MEMBERS ARE: db1, db2, w1
2025/02/02 23:12:36 | GC VIEW OF CURRENT DB MEMBERS IS: db2
2025/02/02 23:12:36 | GC VIEW OF CURRENT ACTIVE WITNESS MEMBERS IS: db2
2025/02/02 23:12:36 | VALIDATED ACTIVE WITNESS MEMBERS ARE: w1
2025/02/02 23:12:36 | CONCLUSION: I AM IN A PRIMARY PARTITION WITH 1 VALIDATED DB MEMBERS AND 1 VALIDATED ACTIVE WITNESSES
`
	log, err := bundle.ParseQuorum("tmsvc.log", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	c := log.Checks[0]
	if !c.Primary || c.Majority != 2 || strings.Join(c.View, ",") != "db2" || strings.Join(c.Witnesses, ",") != "w1" {
		t.Errorf("check %+v", c)
	}
}

func TestParseQuorumErrors(t *testing.T) {
	check := "2025/02/02 23:12:36 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n"
	for _, c := range []struct{ in, want string }{
		{"x\n" + check, "q.log:2: the log ends inside this quorum check: no CONCLUSION line"},
		{check + check, "q.log:1: this quorum check has no CONCLUSION line before the next one at line 2"},
		{"CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n", "q.log:1: a quorum line with no time before it"},
		{check + "2025/02/02 23:12:36 | SIMPLE MAJORITY SIZE: two\n", "q.log:2: SIMPLE MAJORITY SIZE \"two\": not a number"},
		{check + "2025/02/02 23:12:36 | GC VIEW OF CURRENT DB MEMBERS IS: db1, d b2\n", "q.log:2: member \"d b2\""},
		{check + "SIMPLE MAJORITY SIZE: 2\n", "q.log:2: a quorum line with no time before it"},
		{"2025/02/30 23:12:36 | CHECKING FOR QUORUM\n", "q.log:1: log time \"2025/02/30 23:12:36\" is not a time"},
		{check + "2025/02/02 23:12:36 | CONCLUSION: \xff\n", "q.log:2: not UTF-8 text"},
	} {
		_, err := bundle.ParseQuorum("q.log", []byte(c.in))
		var fe *fileline.Error
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want a file:line error starting %q", c.in, err, c.want)
		}
	}
}

// A conclusion whose check began before the log (rotated) is a note, not dropped.
func TestParseQuorumNotesAConclusionWithoutItsCheck(t *testing.T) {
	log, err := bundle.ParseQuorum("q.log", []byte("2025/02/02 23:12:36 | CONCLUSION: I AM IN A PRIMARY PARTITION OF 2 DB MEMBERS OUT OF THE REQUIRED MAJORITY OF 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Notes) != 1 || len(log.Checks) != 0 {
		t.Errorf("notes %+v checks %d", log.Notes, len(log.Checks))
	}
}

// FuzzParseQuorum: the parser never panics, and every check it returns has its lines in
// order, from its CHECKING line to its CONCLUSION line.
func FuzzParseQuorum(f *testing.F) {
	for _, p := range []string{"testdata/failsafe-shun/db1/tmsvc.log", "testdata/failsafe-shun/db2/tmsvc.log"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("2025/02/02 23:12:36 | CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS\n2025/02/02 23:12:36 | CONCLUSION: MEMBERSHIP IS INVALID\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		log, err := bundle.ParseQuorum("f.log", data)
		if err != nil {
			var fe *fileline.Error
			if !errors.As(err, &fe) {
				t.Fatalf("not a file:line error: %v", err)
			}
			return
		}
		for _, c := range log.Checks {
			if c.Lines[0] != c.Start || c.Lines[len(c.Lines)-1] != c.Conclusion {
				t.Fatalf("check lines %v", c.Lines)
			}
			for i := 1; i < len(c.Lines); i++ {
				if c.Lines[i].Line <= c.Lines[i-1].Line {
					t.Fatalf("lines out of order: %v", c.Lines)
				}
			}
		}
	})
}
