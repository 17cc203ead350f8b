package htmlreport_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// TestDeterministic: the same run gives the same bytes, page and chart, on every incident.
func TestDeterministic(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	for _, f := range files {
		tl, m := load(t, f)
		p1, c1 := render(t, tl, m)
		p2, c2 := render(t, tl, m)
		if !bytes.Equal(p1.HTML, p2.HTML) || !bytes.Equal(c1, c2) {
			t.Errorf("%s: two reports of one run differ", f)
		}
		if n, _ := elements(t, c1); n < 50 {
			t.Errorf("%s: the chart has %d elements", f, n)
		}
	}
}

// TestSelfContained: the page names nothing to fetch, and forbids fetching.
func TestSelfContained(t *testing.T) {
	tl, m := load(t, "../testdata/incidents/ebs-stall-aggressive.timeline")
	page, _ := render(t, tl, m)
	s := string(page.HTML)
	for _, bad := range []string{"src=", "href=", "url(", "@import", "<link", "<img", "<iframe"} {
		if strings.Contains(s, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if !strings.Contains(s, `content="default-src 'none';`) {
		t.Error("the page has no Content-Security-Policy forbidding fetches")
	}
}

// FuzzRender: any timeline failsim accepts draws without a panic, as a well-formed chart.
func FuzzRender(f *testing.F) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("cluster db1:master\n"))
	f.Add([]byte("cluster db1:master db2:replica\nchecker interval=1s timeout=9s\n+1s db1 slow 3s\n+2s db1 manager down\n+1s db1 manager up\n+500ms db2 probe query_exec_timeout\n+1h cluster end\n"))
	f.Add([]byte("cluster a:master b:replica\nstart 2000-01-01T00:00:00Z\n2200-01-01T00:00:00Z a refuse\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := timeline.Parse("fuzz.timeline", data)
		if err != nil {
			return
		}
		page, chart := render(t, tl, statemap.Default())
		elements(t, chart)
		if !bytes.HasPrefix(page.HTML, []byte("<!DOCTYPE html>")) {
			t.Fatal("no page")
		}
	})
}
