package htmlreport_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/failsim/failsim/htmlreport"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// TestFileNameXMLSafe: a control character or invalid UTF-8 in the timeline's file name still
// gives a well-formed chart (issue 21, 7.18: the SVG was invalid XML, and Chromium showed
// "PCDATA invalid Char value 1" instead of the chart); the page shows U+FFFD where they were.
func TestFileNameXMLSafe(t *testing.T) {
	tl, m := load(t, "../testdata/incidents/hard-death.timeline")
	tl.File = "odd\x01name\x1b[31m\xff\xfe.timeline"
	page, chart := render(t, tl, m)
	elements(t, chart) // fails the test unless well-formed
	want := "odd\uFFFDname\uFFFD[31m\uFFFD\uFFFD.timeline"
	for _, doc := range [][]byte{chart, page.HTML} {
		if !bytes.Contains(doc, []byte(want)) || bytes.ContainsAny(doc, "\x01\x1b") {
			t.Errorf("the file name is not shown as %q with its control characters replaced", want)
		}
	}
}

// TestCoordinatorDuringPartition: while no side is primary every manager is up, and the
// coordinator row says why there is no coordinator as the event log does (issue 21, 5: it said
// "no manager is up").
func TestCoordinatorDuringPartition(t *testing.T) {
	tl, m := load(t, "../testdata/incidents/two-node-split.timeline")
	page, _ := render(t, tl, m)
	s := string(page.HTML)
	if !strings.Contains(s, "coordinator: none, no primary partition: no manager up is in a primary view from 02:30:10 to 02:50:00") || strings.Contains(s, "no manager is up") {
		t.Error("the coordinator row's title during the split does not say: no primary partition")
	}
	tl, m = load(t, "../testdata/incidents/manager-outage.timeline")
	if page, _ := render(t, tl, m); strings.Contains(string(page.HTML), "no primary partition") {
		t.Error("a manager outage with no partition is called one")
	}
}

// manyEvents is a timeline of n faults and heals over 5 nodes, a second or more apart.
func manyEvents(n int, name func(i int) string) []byte {
	var b strings.Builder
	b.WriteString("cluster")
	for i := 1; i <= 5; i++ {
		role := "replica"
		if i == 1 {
			role = "master"
		}
		fmt.Fprintf(&b, " %s:%s", name(i), role)
	}
	b.WriteString("\n")
	faults := []string{"freeze", "heal", "stall", "heal", "error 1040", "heal", "unreachable", "heal", "slow 2s", "heal"}
	for k := 0; k < n; k++ {
		fmt.Fprintf(&b, "+%ds %s %s\n", 1+k%7, name(2+k%4), faults[k%len(faults)])
	}
	return []byte(b.String())
}

// TestPageBounded: a timeline of 20,000 events with 4 KB node names draws a chart of bounded
// elements (rows past their share merged) and a page of bounded size, names shortened in the
// chart and the log cut in bytes (issue 21, 7.8: a 10 MB timeline gave a 325 MB page and took
// 1.9 GB; long names ran out of memory in the event log's escaping).
func TestPageBounded(t *testing.T) {
	long := func(i int) string { return fmt.Sprintf("db%d%s", i, strings.Repeat("x", 4<<10)) }
	tl, err := timeline.Parse("many.timeline", manyEvents(20000, long))
	if err != nil {
		t.Fatal(err)
	}
	page, chart := render(t, tl, statemap.Default())
	n, by := elements(t, chart)
	t.Logf("page %d bytes, chart %d bytes, %d elements: %v", len(page.HTML), len(chart), n, by)
	if n > 80000 {
		t.Errorf("%d chart elements, want about 60,000 at most", n)
	}
	if len(page.HTML) > 40<<20 {
		t.Errorf("a page of %d bytes, want under 40 MB", len(page.HTML))
	}
	if by["rect"] < 1000 || !bytes.Contains(chart, []byte(`class="mx"`)) {
		t.Errorf("no merged band in the chart of 20,000 events")
	}
	if k := bytes.Count(chart, []byte(strings.Repeat("x", 4<<10))); k > 5 {
		t.Errorf("the chart writes a node's whole 4 KB name %d times, want once a lane (its data-node)", k)
	}
}

// TestLogWriterKeepsTheHead: the page's log keeps its first lines within the caps, whole
// lines only, and counts them all.
func TestLogWriterKeepsTheHead(t *testing.T) {
	var l htmlreport.LogWriter
	line := strings.Repeat("y", 1000) + "\n"
	for k := 0; k < 4000; k++ {
		l.Write([]byte(line[:500]))
		l.Write([]byte(line[500:]))
	}
	l.Write([]byte("last, no newline"))
	txt := l.Text("summary")
	if txt.LogLines != 4001 {
		t.Errorf("%d lines counted, want 4001", txt.LogLines)
	}
	if len(txt.Log) > 2<<20 || len(txt.Log)%len(line) != 0 || len(txt.Log) < (2<<20)-len(line) {
		t.Errorf("the head is %d bytes: want whole lines up to 2 MiB", len(txt.Log))
	}
	var many htmlreport.LogWriter
	for k := 0; k < 6000; k++ {
		fmt.Fprintf(&many, "line %d\n", k)
	}
	if txt := many.Text(""); txt.LogLines != 6000 || strings.Count(txt.Log, "\n") != 5000 {
		t.Errorf("%d lines counted and %d kept, want 6000 and 5000", txt.LogLines, strings.Count(txt.Log, "\n"))
	}
}

// A split-brain window still open when the run ends names every node writable in it, the
// writer that widened it too (rule 70, cut before its heal).
func TestOpenWindowNamesEveryWriter(t *testing.T) {
	src, err := os.ReadFile("../sim/testdata/rules/70-group-split-brain-window-names-every-writer.timeline")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "expect") || strings.HasPrefix(line, "00:01:") {
			continue
		}
		kept = append(kept, line)
	}
	path := filepath.Join(t.TempDir(), "open.timeline")
	os.WriteFile(path, []byte(strings.Join(kept, "\n")+"00:00:55 cluster end\n"), 0o644)
	tl, m := load(t, path)
	page, _ := render(t, tl, m)
	if s := string(page.HTML); !strings.Contains(s, "SPLIT BRAIN: db1 db2 db3 writable at once") {
		t.Error("the open window does not name db1 db2 db3")
	}
}
