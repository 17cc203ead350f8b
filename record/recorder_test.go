package record

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// count is a counter's value.
func count(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestRecorderFiles: the recorder's files, told by hand what a run would tell it: rotation at
// the clock's hour, a reload's new file and statemap copy, the open file while it is open, and
// nothing half-written or left over once closed.
func TestRecorderFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	h := testHeader()
	h.Start = time.Date(2026, 12, 6, 21, 59, 50, 0, time.UTC)
	reg := prometheus.NewRegistry()
	aggr, err := statemap.Load("../conf/examples/aggressive.properties")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Dir: dir, Header: h, Map: statemap.Default(), Override: true, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	e := fence.New(fence.Config{Nodes: h.Nodes, Map: statemap.Default()})
	s := time.Second
	r.OnOutcome(3*s, 3*s, 1, statemap.SocketIOError)
	r.Instant(3*s, e.View())
	r.Instant(9*s, e.View()) // 5 s since the change: the open file is written
	r.Close()                // the writes happen in order, and Close waits for them
	got := names(t, dir)
	defaults := StatemapName(Properties(statemap.Default()))
	want := []string{"000000-20261206T215950.000Z.timeline", defaults}
	if !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}

	dir2 := filepath.Join(t.TempDir(), "rec")
	r, err = New(Config{Dir: dir2, Header: h, Map: statemap.Default(), Override: true})
	if err != nil {
		t.Fatal(err)
	}
	r.OnOutcome(3*s, 3*s, 1, statemap.SocketIOError)
	r.Instant(3*s, e.View())
	r.Instant(10*s, e.View()) // 22:00:00: the hour
	r.OnOutcome(12*s, 12*s, 1, statemap.OK)
	r.Instant(12*s, e.View())
	r.OnReload(13*s, aggr) // closes at the last instant, 12 s
	r.OnOutcome(15*s, 15*s, 1, statemap.SocketIOError)
	r.Instant(15*s, e.View())
	r.Instant(20*s, e.View())
	open := filepath.Join(dir2, "000002-20261206T220002.000Z.timeline.open")
	r.Close()
	got = names(t, dir2)
	want = []string{
		"000000-20261206T215950.000Z.timeline", "000001-20261206T220000.000Z.timeline", "000002-20261206T220002.000Z.timeline",
		defaults, StatemapName(Properties(aggr)),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if _, err := os.Stat(open); !os.IsNotExist(err) {
		t.Errorf("the open file is left behind: %v", err)
	}
	third, _ := os.ReadFile(filepath.Join(dir2, "000002-20261206T220002.000Z.timeline"))
	if !strings.Contains(string(third), "statemap "+StatemapName(Properties(aggr))+"\n") || !strings.Contains(string(third), "22:00:05 db2 probe socket_io_error\n22:00:10 cluster end\n") {
		t.Errorf("the file after the reload:\n%s", third)
	}
	tl, m, err := LoadDir(t.Context(), dir2, "../conf/examples/aggressive.properties")
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Events) != 4 || m == nil {
		t.Errorf("joined events %+v", tl.Events)
	}
	if _, _, err := LoadDir(t.Context(), dir2, ""); err == nil || !strings.Contains(err.Error(), "000002-20261206T220002.000Z.timeline:4: the statemap changes here") {
		t.Errorf("a reload's files without --statemap: %v", err)
	}
	if n := count(t, r.files); n != 3 {
		t.Errorf("failsim_record_files_total %v, want 3", n)
	}

	// A recording's directory is a watch's own.
	if _, err := New(Config{Dir: dir2, Header: h}); err == nil || !strings.Contains(err.Error(), "holds a recording already (000000-20261206T215950.000Z.timeline): record each watch into a directory of its own") {
		t.Errorf("a second watch into the directory: %v", err)
	}
}

// TestRecorderWriteFails: a file that cannot be written (here a directory stands where each
// file goes, which failsim never writes over) is an error counted and logged, and the recorder
// goes on: Close returns.
func TestRecorderWriteFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	h := testHeader()
	r, err := New(Config{Dir: dir, Header: h})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"000000-20261206T210000.000Z.timeline", "000000-20261206T210000.000Z.timeline.open"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := fence.New(fence.Config{Nodes: h.Nodes, Map: statemap.Default()})
	r.OnOutcome(3*time.Second, 3*time.Second, 1, statemap.SocketIOError)
	r.Instant(9*time.Second, e.View())
	r.Close()
	if n := count(t, r.errs); n != 2 {
		t.Errorf("failsim_record_errors_total %v, want 2: the open file's write and the closed file's", n)
	}
	if n := count(t, r.files); n != 0 {
		t.Errorf("failsim_record_files_total %v, want 0", n)
	}
}

// TestRecorderQueueFull: the loop never waits for the writer: a write of the open file that
// finds the queue full is skipped and counted (the next holds everything), a closed file's
// waits for room, in order.
func TestRecorderQueueFull(t *testing.T) {
	r := &Recorder{jobs: make(chan job, 1), errs: prometheus.NewCounter(prometheus.CounterOpts{Name: "e"})}
	r.send(job{path: "a.open", open: true})
	r.send(job{path: "b.open", open: true}) // full: skipped
	r.send(job{path: "c"})                  // full: waits
	r.send(job{path: "d"})                  // waits behind c
	if n := count(t, r.errs); n != 1 || len(r.pending) != 2 {
		t.Fatalf("errors %v, pending %d: want 1 and 2", n, len(r.pending))
	}
	if j := <-r.jobs; j.path != "a.open" {
		t.Errorf("first write %s, want a.open", j.path)
	}
	r.retry()
	if j := <-r.jobs; j.path != "c" || len(r.pending) != 1 {
		t.Errorf("after a retry: %s and %d pending, want c and 1", j.path, len(r.pending))
	}
	r.send(job{path: "e"}) // behind d, though there is room: the closed files keep their order
	r.retry()
	if j := <-r.jobs; j.path != "d" || len(r.pending) != 1 || r.pending[0].path != "e" {
		t.Errorf("order: %s then %v", j.path, r.pending)
	}
}
