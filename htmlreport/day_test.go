package htmlreport_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"testing"

	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// day parses the benchmark's day: 24 hours of 5 nodes with 2,000 faults.
func day(t testing.TB) *timeline.Timeline {
	tl, err := timeline.Parse("day.timeline", []byte(daytimeline.Text(2000, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// elements counts the elements of an XML document, by name.
func elements(t testing.TB, doc []byte) (int, map[string]int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	total, by := 0, map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return total, by
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			total++
			by[se.Name.Local]++
		}
	}
}

// Limits of a day-long report: the page a browser opens at once, and the chart's elements.
const (
	maxDayBytes    = 5 << 20
	maxDayElements = 20000
)

// TestDayStaysReadable: a day of 2,000 faults gives a page under 5 MB and a bounded chart: runs
// of identical probes are one band each, not one mark a probe (the day has about 144,000).
func TestDayStaysReadable(t *testing.T) {
	tl := day(t)
	page, chart := render(t, tl, statemap.Default())
	n, by := elements(t, chart)
	t.Logf("page %d bytes, chart %d bytes, %d SVG elements: %v", len(page.HTML), len(chart), n, by)
	if len(page.HTML) >= maxDayBytes {
		t.Errorf("the page of a day is %d bytes, want under %d", len(page.HTML), maxDayBytes)
	}
	if n > maxDayElements {
		t.Errorf("the chart of a day has %d SVG elements, want at most %d", n, maxDayElements)
	}
	if by["rect"] < 2000 {
		t.Errorf("the chart of a day has %d rects: fewer than its faults", by["rect"])
	}
}

// BenchmarkReportDay replays the day of 2,000 faults with everything failsim report observes
// (the event log, the verdict, the expectations and the picture's recorder) and draws the page
// and the chart alone:
//
//	GOMAXPROCS=1 go test ./htmlreport -run XXX -bench ReportDay -benchtime 20x -count 3
func BenchmarkReportDay(b *testing.B) {
	tl := day(b)
	m := statemap.Default()
	b.ReportAllocs()
	var size int
	for b.Loop() {
		page, _ := render(b, tl, m)
		size = len(page.HTML)
	}
	b.ReportMetric(float64(size), "page-bytes")
}

// TestRecordingDrawsNoFaultForOkProbes: a recording (failsim watch --record) tells every
// change of a probe's outcome as a "probe CONDITION" event, ok included; the faults row draws
// the bad outcomes and leaves the ok ones empty, as it does a heal, so a quiet recorded day
// does not look faulted from end to end.
func TestRecordingDrawsNoFaultForOkProbes(t *testing.T) {
	tl, err := timeline.Parse("rec.timeline", []byte(`cluster db1:master db2:replica
start 2026-12-06T00:00:00Z

00:01:51 db1 probe query_results_timeout
00:01:54 db1 probe ok
00:03:42 db2 probe ok
01:00:00 cluster end
`))
	if err != nil {
		t.Fatal(err)
	}
	_, chart := render(t, tl, statemap.Default())
	if !bytes.Contains(chart, []byte("db1 fault probe query_results_timeout")) {
		t.Error("the recorded timeout is not drawn as a fault")
	}
	if bytes.Contains(chart, []byte("fault probe ok")) {
		t.Error("a recorded ok probe is drawn as a fault")
	}
}
