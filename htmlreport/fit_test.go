package htmlreport_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// layout is what TestFitsWindow reads off a page at one window width: the window's and the
// chart's right edges, the plot's, the last failover mark's x, and the box of every text of the
// chart that is shown, with the row it is laid out in ("" for none).
type layout struct {
	Window   float64 `json:"window"`
	Right    float64 `json:"right"`
	PlotR    float64 `json:"plotR"`
	LastMark float64 `json:"lastMark"`
	Texts    []struct {
		Row   string  `json:"row"`
		Text  string  `json:"text"`
		Left  float64 `json:"left"`
		Right float64 `json:"right"`
		Top   float64 `json:"top"`
		Bot   float64 `json:"bot"`
	} `json:"texts"`
}

const layoutJS = `(() => {
const svg = document.getElementById("chart"), s = svg.getBoundingClientRect(), k = s.width / svg.viewBox.baseVal.width;
const fo = [...document.querySelectorAll("#plot .fo, #plot .nc")].map(p => p.getBoundingClientRect());
return JSON.stringify({
  window: document.documentElement.clientWidth, right: s.right,
  plotR: s.left + k * (+svg.dataset.plotx + +svg.dataset.plotw),
  lastMark: fo.length ? Math.max(...fo.map(b => b.left + b.width / 2)) : -1,
  texts: [...svg.querySelectorAll("text")].filter(e => e.getAttribute("display") != "none" && e.textContent != "").map(e => {
    const b = e.getBoundingClientRect();
    return {row: e.dataset.row || "", text: e.textContent, left: b.left, right: b.right, top: b.top, bot: b.bottom};
  }),
});
})()`

// fitWidths are the window widths the page must fit: a small laptop, a common desktop, a wide
// screen.
var fitWidths = []int64{1024, 1400, 2560}

// endsAtFailover is a run cut at its failover, as a check counterexample ends at its
// violation: the failover's mark and label sit at the plot's right edge.
const endsAtFailover = `cluster db1:master db2:replica db3:replica
start 21:00:00
21:10:00 db1 refuse
21:10:00 cluster end
`

// TestFitsWindow opens reports at three window widths: the chart is as wide as the window, no
// wider (nothing off screen), the last failover's mark inside it, every text of the chart
// inside the chart, and the labels of one row (failovers, the writes, each node's ranking)
// apart. It writes screenshots of each page at each width to the test's temporary directory,
// or to $FAILSIM_SHOTS when set.
func TestFitsWindow(t *testing.T) {
	bctx := newBrowser(t)
	short, err := timeline.Parse("counterexample.timeline", []byte(endsAtFailover))
	if err != nil {
		t.Fatal(err)
	}
	lagging, lm := load(t, "../testdata/incidents/lagging-replica.timeline")
	split, sm := load(t, "../testdata/incidents/partition-master-workload.timeline")
	cases := []struct {
		name string
		tl   *timeline.Timeline
		m    *statemap.Map
	}{
		{"counterexample", short, statemap.Default()},
		{"lagging-replica", lagging, lm},
		{"partition-master-workload", split, sm},
	}
	shots := os.Getenv("FAILSIM_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	for _, cs := range cases {
		page, _ := render(t, cs.tl, cs.m)
		for _, w := range fitWidths {
			t.Run(fmt.Sprintf("%s/%d", cs.name, w), func(t *testing.T) {
				tctx, pl, url := open(t, bctx, page.HTML)
				if err := chromedp.Do(tctx, chromedp.EmulateViewport(w, 900)); err != nil {
					t.Fatal(err)
				}
				s, err := chromedp.Run(tctx, chromedp.Evaluate[string](layoutJS))
				if err != nil {
					t.Fatal(err)
				}
				var l layout
				if err := json.Unmarshal([]byte(s), &l); err != nil {
					t.Fatal(err)
				}
				clean(t, pl, url)
				if l.Right > l.Window+0.5 || l.Right < 0.9*l.Window {
					t.Errorf("the chart's right edge at %.1f in a window of %.0f: want it to fit the window", l.Right, l.Window)
				}
				if l.LastMark < 0 || l.LastMark > l.PlotR+0.5 {
					t.Errorf("the last failover's mark at x=%.1f, the plot ends at %.1f", l.LastMark, l.PlotR)
				}
				rows := map[string][][2]float64{}
				for _, e := range l.Texts {
					if e.Right > l.Right+0.5 {
						t.Errorf("text %q ends at x=%.1f, past the chart's right edge %.1f: clipped", e.Text, e.Right, l.Right)
					}
					if e.Row != "" {
						for _, o := range rows[e.Row] {
							if e.Left < o[1] && o[0] < e.Right {
								t.Errorf("row %s: label %q at %.1f..%.1f overlaps one at %.1f..%.1f", e.Row, e.Text, e.Left, e.Right, o[0], o[1])
							}
						}
						rows[e.Row] = append(rows[e.Row], [2]float64{e.Left, e.Right})
					}
				}
				if cs.name == "counterexample" && !hasText(l, "failover 21:10:00") {
					t.Errorf("no whole label of the failover at the run's end: texts %v", l.Texts)
				}
				if cs.name == "lagging-replica" {
					for _, want := range []string{"1st: stored 84401, lag 4.99s", "2nd: stored 82700, lag 22s", "longest outage 2s · 299 writes lost"} {
						if !hasText(l, want) {
							t.Errorf("no label %q on the lagging replica's page", want)
						}
					}
				}
				shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(shots, fmt.Sprintf("%s-%d.png", cs.name, w))
				if err := os.WriteFile(file, shot, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot %s", file)
			})
		}
	}
}

func hasText(l layout, s string) bool {
	for _, e := range l.Texts {
		if strings.Contains(e.Text, s) {
			return true
		}
	}
	return false
}

// TestInjectedScriptBlocked: the page's Content-Security-Policy runs its own zoom script (by
// its hash) and nothing else: a script injected into the page does not run, and the zoom
// still does (issue 21, 7.19: the policy allowed any inline script).
func TestInjectedScriptBlocked(t *testing.T) {
	bctx := newBrowser(t)
	tl, m := load(t, "../testdata/incidents/silent-death.timeline")
	page, _ := render(t, tl, m)
	injected := strings.Replace(string(page.HTML), "</body>", `<script>document.title="injected"</script></body>`, 1)
	tctx, pl, _ := open(t, bctx, []byte(injected))
	title, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.title`))
	if err != nil {
		t.Fatal(err)
	}
	if title == "injected" {
		t.Error("an injected inline script ran")
	}
	before := readFacts(t, tctx)
	wheel := fmt.Sprintf(`(() => { document.getElementById("chart").dispatchEvent(new WheelEvent("wheel", {clientX: %f, clientY: %f, deltaY: -100, bubbles: true, cancelable: true})); return true; })()`, before.Marks[0].X, before.Marks[0].Y)
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](wheel)); err != nil {
		t.Fatal(err)
	}
	if after := readFacts(t, tctx); after.ViewBox == before.ViewBox {
		t.Error("the zoom script did not run under the policy: the viewBox did not change")
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	blocked := false
	for _, e := range pl.errors {
		blocked = blocked || strings.Contains(e, "Content Security Policy")
	}
	if !blocked {
		t.Errorf("no Content-Security-Policy refusal reported; errors: %q", pl.errors)
	}
}

// TestSVGWithControlCharactersInBrowser: the chart alone, of a timeline whose file name has
// a control character and invalid UTF-8, opens in Chromium as an SVG document, not as its
// XML parser's error page.
func TestSVGWithControlCharactersInBrowser(t *testing.T) {
	bctx := newBrowser(t)
	tl, m := load(t, "../testdata/incidents/hard-death.timeline")
	tl.File = "odd\x01name\xff.timeline"
	_, chart := render(t, tl, m)
	file := filepath.Join(t.TempDir(), "chart.svg")
	if err := os.WriteFile(file, chart, 0o644); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+file)); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.documentElement.nodeName + " " + document.getElementsByTagName("parsererror").length + " " + document.querySelectorAll("g.lane").length`))
	if err != nil {
		t.Fatal(err)
	}
	if got != "svg 0 3" {
		t.Errorf("the chart opened as %q, want an svg document with no parser error and 3 lanes", got)
	}
}
