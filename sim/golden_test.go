package sim_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files from the current output")

// replay replays the timeline at path as `failsim replay` does and returns its output and
// whether every expectation held.
func replay(t *testing.T, path string, f report.Format) ([]byte, bool) {
	t.Helper()
	tl, sm, err := timeline.LoadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	results, err := sim.Run(context.Background(), &out, f, tl, sm)
	if err != nil {
		t.Fatal(err)
	}
	ok := true
	for _, r := range results {
		ok = ok && r.Held
	}
	return out.Bytes(), ok
}

// golden compares got with the golden file, or rewrites it with -rewrite.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *rewrite {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./sim -rewrite to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (review with go test ./sim -rewrite && git diff):\n%s", file, firstDiff(string(want), string(got)))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, wl, gl)
		}
	}
	return ""
}

// TestRules replays one timeline per engine rule (testdata/rules): each states the rule it pins
// in its comments and expect lines, and its whole event log is golden.
func TestRules(t *testing.T) {
	files, _ := filepath.Glob("testdata/rules/*.timeline")
	if len(files) == 0 {
		t.Fatal("no rule timelines")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, ok := replay(t, f, report.Text)
			if !ok {
				t.Errorf("an expectation failed:\n%s", out)
			}
			golden(t, strings.TrimSuffix(f, ".timeline")+".golden", out)
		})
	}
}

// TestIncidents replays every shipped incident: its expectations hold and its output, in text
// and JSON, is golden.
func TestIncidents(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	if len(files) < 10 {
		t.Fatalf("want the ten shipped incidents, found %d", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".timeline")
		t.Run(name, func(t *testing.T) {
			out, ok := replay(t, f, report.Text)
			if !ok {
				t.Errorf("an expectation failed:\n%s", out)
			}
			golden(t, filepath.Join("..", "testdata", "golden", name+".txt"), out)
			js, _ := replay(t, f, report.JSON)
			golden(t, filepath.Join("..", "testdata", "golden", name+".json"), js)
		})
	}
}

// TestReplayDeterministic replays every incident twice: byte-identical output.
func TestReplayDeterministic(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	for _, f := range files {
		for _, format := range []report.Format{report.Text, report.JSON} {
			a, _ := replay(t, f, format)
			b, _ := replay(t, f, format)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: two replays differ", f)
			}
		}
	}
}
