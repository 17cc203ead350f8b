package monitor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/timeline"
)

// syncBuffer is a bytes.Buffer safe for the loop and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStatemapReload edits the override while the runtime runs: a bad edit is rejected with
// its file:line and the last good map kept; a good edit takes effect at the next probe.
func TestStatemapReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "statemap.properties")
	write := func(text string, mod time.Time) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write("mysql_error.state=suspect\nmysql_error.threshold=-1\nmysql_error.action=none\n", base)

	db1 := &predicted{timeout: 5 * time.Second}
	db2 := &predicted{timeout: 5 * time.Second}
	var out, logs syncBuffer
	mock := clock.NewMock()
	printer := report.NewPrinter(&out, report.Text, time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), []string{"db1", "db2"})
	r, err := New(Config{
		Nodes:     []Node{{Name: "db1", Role: fence.Master, Prober: db1}, {Name: "db2", Role: fence.Replica, Prober: db2}},
		Statemap:  path,
		Clock:     mock,
		Log:       zerolog.New(&logs),
		Observers: []drive.Observer{printer},
	}, Script{
		Actions: []act.Action{{At: 14 * time.Second, Kind: act.SetFault, Node: 0, Fault: fault.Fault{Kind: fault.Error, Code: 1130}}},
		Inject:  func(int, fault.Fault) { db1.set(fault.Fault{Kind: fault.Error, Code: 1130}) },
		End:     20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The edits come from outside, as an operator's do, while the runtime waits.
	runMock(t, r, mock, edit{5 * time.Second, func() {
		write("mysql_error.state=stopped\nmysql_error.threshold=zero\nmysql_error.action=fail\n", base.Add(time.Minute))
	}}, edit{11 * time.Second, func() {
		write("mysql_error.state=stopped\nmysql_error.threshold=0\nmysql_error.action=fail\n", base.Add(2*time.Minute))
	}})
	tl := &timeline.Timeline{Nodes: []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2"}}}
	if err := printer.Summary("reload", report.New(tl, nil), nil); err != nil {
		t.Fatal(err)
	}
	printed := out.String()
	if !strings.Contains(logs.String(), "statemap edit rejected") || !strings.Contains(logs.String(), "statemap.properties:2") {
		t.Errorf("the bad edit was not logged with its line:\n%s", logs.String())
	}
	for _, want := range []string{
		"00:00:15 db1 state online -> stopped (mysql_error)",
		"00:00:15 db1 alarm raised: mysql_error (threshold 0, action fail)",
		"00:00:15 db1 FAILOVER: master db1 failed (mysql_error), db2 is master",
	} {
		if !strings.Contains(printed, want+"\n") {
			t.Errorf("missing %q in:\n%s", want, printed)
		}
	}
	if !strings.Contains(logs.String(), "statemap reloaded") {
		t.Errorf("the good edit was not logged:\n%s", logs.String())
	}
}
