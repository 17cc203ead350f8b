package record

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

const file0 = `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2026-12-06T21:00:00Z

21:00:03 db1 probe login_response_timeout
21:00:30 cluster end

expect db1 timeout at 21:00:30
`

// file1 holds an outcome that started before its first instant (a probe under way at the cut).
const file1 = `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2026-12-06T21:00:00Z

21:00:28 db2 probe socket_io_error
21:01:40 cluster end

expect failover of db1 to db2 after 21:01:20 by 21:01:20
`

func parse(t *testing.T, name, text string) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// TestJoin: the files' events in time order, one end (the last file's), every expectation.
func TestJoin(t *testing.T) {
	tl, err := Join("rec", []*timeline.Timeline{parse(t, "rec/0.timeline", file0), parse(t, "rec/1.timeline", file1)})
	if err != nil {
		t.Fatal(err)
	}
	got := string(timeline.Format(tl))
	want := `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2026-12-06T21:00:00Z

21:00:03 db1 probe login_response_timeout
21:00:28 db2 probe socket_io_error
21:01:40 cluster end

expect db1 timeout at 21:00:30
expect failover of db1 to db2 after 21:01:20 by 21:01:20
`
	if got != want {
		t.Errorf("joined:\n%s\nwant:\n%s", got, want)
	}
	if tl.File != "rec" || tl.Expects[1].Line != 8 {
		t.Errorf("file %q, the second expectation's line %d: want rec and 8 (its line in its own file)", tl.File, tl.Expects[1].Line)
	}
}

// TestJoinRefuses: a file of another watch is an error at its line.
func TestJoinRefuses(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"cluster", strings.Replace(file1, "db2:replica", "db2:replica db3:replica", 1), "rec/1.timeline:1: its cluster line is not the first file's (0.timeline): the files of a recording are segments of one watch"},
		{"checker", strings.Replace(file1, "timeout=5s", "timeout=4s", 1), "rec/1.timeline:1: its checker is not the first file's"},
		{"start", strings.Replace(file1, "21:00:00Z", "20:00:00Z", 1), "rec/1.timeline:1: its start is not the first file's"},
	} {
		_, err := Join("rec", []*timeline.Timeline{parse(t, "rec/0.timeline", file0), parse(t, "rec/1.timeline", c.text)})
		var fe *fileline.Error
		if err == nil || !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one starting %q", c.name, err, c.want)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadDir: the statemap the files name is the map; one gone is an error at the statement's
// line; a change of statemap between files is one at the later file's.
func TestLoadDir(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	aggr, err := statemap.Load("../conf/examples/aggressive.properties")
	if err != nil {
		t.Fatal(err)
	}
	data := Properties(aggr)
	sm := StatemapName(data)
	withMap := func(text, name string) string {
		return strings.Replace(text, "start 2026-12-06T21:00:00Z\n", "start 2026-12-06T21:00:00Z\nstatemap "+name+"\n", 1)
	}
	writeFiles(t, dir, map[string]string{"000000-a.timeline": withMap(file0, sm), "000001-b.timeline": withMap(file1, sm)})
	if _, _, err := LoadDir(ctx, dir, ""); err == nil || !strings.Contains(err.Error(), "000000-a.timeline:4: statemap "+filepath.Join(dir, sm)+": ") {
		t.Errorf("statemap gone: err %v, want one at 000000-a.timeline:4", err)
	}
	writeFiles(t, dir, map[string]string{sm: string(data)})
	tl, m, err := LoadDir(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Events) != 3 || m.Rule(statemap.LoginResponseTimeout).Threshold != aggr.Rule(statemap.LoginResponseTimeout).Threshold {
		t.Errorf("events %d, threshold %d: want 3 and the aggressive map's %d", len(tl.Events), m.Rule(statemap.LoginResponseTimeout).Threshold, aggr.Rule(statemap.LoginResponseTimeout).Threshold)
	}
	writeFiles(t, dir, map[string]string{"000001-b.timeline": file1})
	_, _, err = LoadDir(ctx, dir, "")
	if want := "000001-b.timeline:1: the statemap changes here, from " + sm + " to the shipped defaults"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("statemap changed: err %v, want %q", err, want)
	}
	if _, _, err := LoadDir(ctx, dir, "../conf/examples/aggressive.properties"); err != nil {
		t.Errorf("with an override the files' statemaps do not matter: %v", err)
	}
	empty := t.TempDir()
	writeFiles(t, empty, map[string]string{"000000-a.timeline.open": file0})
	if _, err := ReadDir(ctx, empty); err == nil || !strings.Contains(err.Error(), "no recording in it: no file *.timeline (000000-a.timeline.open is the file a watch had open") {
		t.Errorf("only an open file: err %v", err)
	}
}

// TestProperties: the copy is the map again, rule for rule, for the defaults and an override.
func TestProperties(t *testing.T) {
	for _, path := range []string{"", "../conf/examples/aggressive.properties"} {
		m, err := statemap.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		back, err := statemap.FromBytes("copy", Properties(m))
		if err != nil {
			t.Fatal(err)
		}
		for c := range statemap.NumConditions {
			a, b := m.Rule(c), back.Rule(c)
			if a.State != b.State || a.Threshold != b.Threshold || a.Action != b.Action {
				t.Errorf("%q: %v: %+v read back as %+v", path, c, a, b)
			}
		}
	}
	if n := StatemapName([]byte("x")); n != "statemap-2d711642b726.properties" {
		t.Errorf("StatemapName = %s", n)
	}
}

// TestNextBoundary: rotation is on the clock's hour or day, in UTC.
func TestNextBoundary(t *testing.T) {
	start := time.Date(2026, 12, 6, 21, 40, 4, 0, time.UTC)
	for _, c := range []struct {
		at, every, want time.Duration
	}{
		{0, time.Hour, 19*time.Minute + 56*time.Second},
		{19*time.Minute + 56*time.Second, time.Hour, 79*time.Minute + 56*time.Second}, // at a boundary: the next
		{0, 24 * time.Hour, 2*time.Hour + 19*time.Minute + 56*time.Second},
	} {
		if got := nextBoundary(start, c.at, c.every); got != c.want {
			t.Errorf("nextBoundary(%v, %v) = %v, want %v", c.at, c.every, got, c.want)
		}
	}
}
