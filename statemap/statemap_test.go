package statemap

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fileline"
)

// The shipped defaults are the reference table, with a line for every condition.
func TestDefaults(t *testing.T) {
	m := Default()
	for _, c := range []struct {
		cond      Condition
		state     State
		threshold int
		action    Action
	}{
		{SocketIOError, Stopped, 0, Fail},
		{SocketConnectTimeout, Timeout, 8, Fail},
		{LoginResponseTimeout, Timeout, 8, Fail},
		{NoRouteToHost, Suspect, 6, Fail},
		{SendQueryTimeout, Timeout, -1, None},
		{QueryExecTimeout, Timeout, -1, None},
		{QueryResultsTimeout, Timeout, -1, None},
		{HostIsDown, Suspect, -1, None},
		{MySQLError, Suspect, -1, None},
		{TooManyConnections, Suspect, -1, None},
		{WrongCredentials, Suspect, -1, None},
	} {
		r := m.Rule(c.cond)
		if r.State != c.state || r.Threshold != c.threshold || r.Action != c.action {
			t.Errorf("%s = %s %d %s, want %s %d %s", c.cond, r.State, r.Threshold, r.Action, c.state, c.threshold, c.action)
		}
	}
	for _, c := range Conditions() {
		if src := m.Rule(c).Source; !strings.HasPrefix(src, "statemap.properties.defaults:") {
			t.Errorf("%s has no line in the defaults (source %q)", c, src)
		}
	}
}

func TestOverrideFirstThenDefaults(t *testing.T) {
	m, err := FromBytes("o.properties", []byte("# override\nquery_results_timeout.state=TIMEOUT\nquery_results_timeout.threshold= 8\nquery_results_timeout.action=Fail\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Rule(QueryResultsTimeout)
	if r.State != Timeout || r.Threshold != 8 || r.Action != Fail || r.Source != "o.properties:2" {
		t.Errorf("override: %+v", r)
	}
	if r := m.Rule(SocketIOError); r.Threshold != 0 || r.Action != Fail {
		t.Errorf("defaults lost: %+v", r)
	}
	if r := New().Rule(MySQLError); r.State != Unknown || r.Threshold != -1 || r.Action != None || r.Source != "unmapped" {
		t.Errorf("unmapped: %+v", r)
	}
	if r := m.Rule(NumConditions + 3); r.Source != "unmapped" {
		t.Errorf("out of range: %+v", r)
	}
}

// Every rejection names the file and line and says what is wrong.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a.state=online\n", "f.properties:1: unknown condition \"a\" (failsim statemap lists the conditions)"},
		{"# c\nsocket_io_eror.state=stopped\n", "f.properties:2: unknown condition \"socket_io_eror\" (did you mean socket_io_error?)"},
		{"socket_io_error.state=stopped\nsocket_io_error.action=fail\n", "f.properties:1: socket_io_error: a block needs all three keys; missing socket_io_error.threshold"},
		{"mysql_error.state=dead\nmysql_error.threshold=1\nmysql_error.action=fail\n", "f.properties:1: mysql_error.state: unknown state \"dead\": want online, stopped, timeout, suspect or unknown"},
		{"mysql_error.state=suspect\nmysql_error.threshold=-2\nmysql_error.action=fail\n", "f.properties:2: mysql_error.threshold: threshold \"-2\": want an integer from -1 to 100000000 (ticks of 10 s; -1 never, 0 at once)"},
		{"mysql_error.state=suspect\nmysql_error.threshold=1.5\nmysql_error.action=fail\n", "f.properties:2: mysql_error.threshold: threshold \"1.5\": want an integer from -1 to 100000000 (ticks of 10 s; -1 never, 0 at once)"},
		{"mysql_error.state=suspect\nmysql_error.threshold=9223372036854775807\nmysql_error.action=fail\n", "f.properties:2: mysql_error.threshold: threshold \"9223372036854775807\": want an integer from -1 to 100000000 (ticks of 10 s; -1 never, 0 at once)"},
		{"mysql_error.state=suspect\nmysql_error.threshold=100000001\nmysql_error.action=fail\n", "f.properties:2: mysql_error.threshold: threshold \"100000001\": want an integer from -1 to 100000000"},
		{"mysql_error.state=suspect\nmysql_error.threshold=1\nmysql_error.action=page\n", "f.properties:3: mysql_error.action: unknown action \"page\": want none, alert or fail"},
		{"mysql_error.colour=red\n", "f.properties:1: key \"mysql_error.colour\": \"colour\" is not state, threshold or action"},
		{"threshold=1\n", "f.properties:1: key \"threshold\": want CONDITION.state, CONDITION.threshold or CONDITION.action"},
		{"ok.state=stopped\nok.threshold=0\nok.action=fail\n", "f.properties:1: ok.state: ok always shows online"},
		{"x=\\u12\n", "f.properties:1: not a properties line:"},
		// A key set twice is refused at its second line, naming the first: the properties
		// format keeps the last silently, and which one the author meant is theirs to say.
		{"# c\nmysql_error.state=suspect\nmysql_error.threshold=1\nmysql_error.action=fail\nmysql_error.threshold=3\n", "f.properties:5: mysql_error.threshold is set twice, at lines 3 and 5: set each key once"},
		{"mysql_error.state=suspect\nmysql_error.state : suspect\nmysql_error.state=online\n", "f.properties:2: mysql_error.state is set twice, at lines 1 and 2"},
		{"mysql_error.action=fail\nmysql_error.state=suspect\n  mysql_error.threshold=\\\n  1\nmysql_error.threshold 2\n", "f.properties:5: mysql_error.threshold is set twice, at lines 3 and 5"},
	} {
		_, err := Parse("f.properties", []byte(c.in))
		var pe *fileline.Error
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q):\n got  %v\n want %s", c.in, err, c.want)
		}
	}
}

func TestUndefinedActionIsNone(t *testing.T) {
	r, err := Parse("f", []byte("mysql_error.state=suspect\nmysql_error.threshold=2\nmysql_error.action=UNDEFINED\n"))
	if err != nil || r[MySQLError].Action != None {
		t.Fatalf("%v %+v", err, r)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("does-not-exist.properties")
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err %v", err)
	}
}

func TestWindowAndExplain(t *testing.T) {
	for _, c := range []struct {
		r      Rule
		lo, hi time.Duration
		ok     bool
		says   string
	}{
		{Rule{State: Online, Threshold: -1, Action: None}, 0, 0, false, "logs only: shows online, never fences, yet is no ok probe: raises an alarm and deletes none"},
		{Rule{State: Online, Threshold: 0, Action: Fail}, 0, 0, true, "fails the node at once; shows online, yet is no ok probe: raises an alarm and deletes none"},
		{Rule{State: Suspect, Threshold: MaxThreshold, Action: Fail}, (MaxThreshold - 1) * TickInterval, MaxThreshold * TickInterval, true, "fails the node after 100000000 ticks: 999999990-1000000000 s of sustained failure"},
		{Rule{State: Timeout, Threshold: 8, Action: Fail}, 70 * time.Second, 80 * time.Second, true, "fails the node after 8 ticks: 70-80 s of sustained failure"},
		{Rule{State: Stopped, Threshold: 0, Action: Fail}, 0, 0, true, "fails the node at once"},
		{Rule{State: Suspect, Threshold: 1, Action: Fail}, 0, 10 * time.Second, true, "fails the node after 1 tick: 0-10 s of sustained failure"},
		{Rule{State: Timeout, Threshold: -1, Action: None}, 0, 0, false, "logs only: shows timeout, never fences"},
		{Rule{State: Suspect, Threshold: 3, Action: Alert}, 20 * time.Second, 30 * time.Second, true, "logs ALERT NOT IMPLEMENTED after 3 ticks: 20-30 s of sustained failure, never fences"},
		{Rule{State: Suspect, Threshold: 2, Action: None}, 10 * time.Second, 20 * time.Second, true, "logs the expiry after 2 ticks: 10-20 s of sustained failure, never fences"},
	} {
		lo, hi, ok := c.r.Window()
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("%+v: window %v-%v %v", c.r, lo, hi, ok)
		}
		if got := c.r.Explain(MySQLError); got != c.says {
			t.Errorf("%+v: %q, want %q", c.r, got, c.says)
		}
	}
}

// ok is healthy, whatever its rule says.
func TestExplainOK(t *testing.T) {
	if got := Default().Rule(OK).Explain(OK); got != "healthy: deletes the node's alarms" {
		t.Errorf("ok: %q", got)
	}
}

// FuzzParse: no input panics, and what parses is a complete, valid rule set.
func FuzzParse(f *testing.F) {
	f.Add([]byte("socket_io_error.state=stopped\nsocket_io_error.threshold=0\nsocket_io_error.action=fail\n"))
	f.Add([]byte("a.b=c\\\n  d\n"))
	f.Add([]byte("x=${y}\n"))
	f.Add([]byte("\xef\xbb\xbfok.state=online\r\nok.threshold=-1\r\nok.action=none"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, err := Parse("fuzz.properties", data)
		if err != nil {
			var pe *fileline.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error without a file: %v", err)
			}
			return
		}
		for c, r := range rules {
			if c >= NumConditions || r.Threshold < -1 || r.Threshold > MaxThreshold || r.State >= numStates || r.Action >= numActions {
				t.Fatalf("invalid rule %s %+v", c, r)
			}
		}
	})
}

// TestNearest: a typo gets its condition, nonsense gets no suggestion.
func TestNearest(t *testing.T) {
	for s, want := range map[string]string{"socket_io_eror": "socket_io_error", "querry_results_timeout": "query_results_timeout", "login_resp": "login_response_timeout", "mysql_eror": "mysql_error"} {
		if n, ok := Nearest(s); !ok || n != want {
			t.Errorf("Nearest(%q) = %q, %v; want %s", s, n, ok, want)
		}
	}
	for _, s := range []string{"a", "foo_bar", "liveness", "xyzzy", ""} {
		if n, ok := Nearest(s); ok {
			t.Errorf("Nearest(%q) = %q: want no suggestion", s, n)
		}
	}
}

// A leading UTF-8 byte order mark is skipped, as the properties reader does: the first key is
// read, and lines count as before.
func TestByteOrderMark(t *testing.T) {
	r, err := Parse("f.properties", []byte("\ufeffmysql_error.state=suspect\nmysql_error.threshold=2\nmysql_error.action=fail\n"))
	if err != nil || r[MySQLError].Threshold != 2 || r[MySQLError].Source != "f.properties:1" {
		t.Fatalf("%v %+v", err, r)
	}
}
