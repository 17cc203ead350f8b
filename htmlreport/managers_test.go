package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/failsim/failsim/htmlreport"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/sim"
)

// renderManagers replays the timeline at path under Tungsten's rules and Orchestrator's
// (every cluster recovered), as failsim report --managers tungsten,orchestrator does, and
// returns the page and the chart alone; lanes false leaves the managers' lanes out.
func renderManagers(t testing.TB, path string, lanes bool) (page, svg []byte) {
	t.Helper()
	tl, m := load(t, path)
	rec := htmlreport.New(tl, m)
	tung := htmlreport.NewManagerLane("tungsten", tl)
	if _, err := sim.ReplayContext(context.Background(), tl, m, rec, tung); err != nil {
		t.Fatal(err)
	}
	cfg := orchestrator.Defaults()
	cfg.RecoverMasterClusterFilters = []string{"*"}
	orch := htmlreport.NewManagerLane("orchestrator", tl)
	if _, err := sim.ReplayOrchestrator(tl, cfg, orch); err != nil {
		t.Fatal(err)
	}
	if lanes {
		rec.Managers(tung, orch)
	}
	var p, c bytes.Buffer
	if err := rec.WriteHTML(&p, htmlreport.Text{}); err != nil {
		t.Fatal(err)
	}
	if err := rec.WriteSVG(&c); err != nil {
		t.Fatal(err)
	}
	return p.Bytes(), c.Bytes()
}

// TestManagerLanes: the lagging replica's master dies with writes of 100/s. The chart has a
// lane per manager, Tungsten's first, above the nodes' lanes: Tungsten's master changes to db3
// at its failover; Orchestrator's analysis goes DeadMaster, its recovery at 03:14:31 promotes
// db3 (a mark), and its writes fail from the death to the recovery. The same run without the
// lanes draws none of it, and the lanes are drawn the same way twice.
func TestManagerLanes(t *testing.T) {
	_, svg := renderManagers(t, "../testdata/incidents/lagging-replica.timeline", true)
	s := string(svg)
	for _, want := range []string{
		`<g class="mlane" data-manager="tungsten">`,
		`<g class="mlane" data-manager="orchestrator">`,
		`<title>tungsten: master db3 from 03:14:09 to 03:30:00</title>`,
		`<title>orchestrator: db1 DeadMaster from 03:14:31 to 03:14:31</title>`,
		`class="mr" data-t="871"><title>03:14:31 orchestrator: db1 DeadMaster: recovery promotes db3, repoints db2</title>`,
		`<title>orchestrator: master db3 from 03:14:31 to 03:30:00</title>`,
		`<title>orchestrator: no write acknowledged from 03:14:07 to 03:14:31 (2400 writes failed)</title>`,
		`<title>tungsten: 180001 writes offered, 179801 acknowledged, 200 failed; 299 acknowledged lost</title>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the chart lacks %s", want)
		}
	}
	if a, b, n := strings.Index(s, `data-manager="tungsten"`), strings.Index(s, `data-manager="orchestrator"`), strings.Index(s, `<g class="lane" data-node="db1"`); !(a < b && b < n) {
		t.Errorf("the lanes' order: tungsten at %d, orchestrator at %d, db1 at %d; want them in that order", a, b, n)
	}
	if _, again := renderManagers(t, "../testdata/incidents/lagging-replica.timeline", true); !bytes.Equal(svg, again) {
		t.Error("two drawings of one run differ")
	}
	_, plain := renderManagers(t, "../testdata/incidents/lagging-replica.timeline", false)
	if bytes.Contains(plain, []byte("mlane")) || bytes.Contains(plain, []byte(".oc0")) {
		t.Error("a chart without managers' lanes draws some")
	}
	tl, m := load(t, "../testdata/incidents/lagging-replica.timeline")
	_, ref := render(t, tl, m)
	if !bytes.Equal(plain, ref) {
		t.Error("a recorder given no lanes draws another chart than failsim report's")
	}
}

// TestManagerLaneWithoutOrchestrator: a Tungsten lane has no analysis row, and a timeline
// without a workload no writes row: the lane is the master alone.
func TestManagerLaneWithoutOrchestrator(t *testing.T) {
	tl, m := load(t, "../testdata/incidents/hard-death.timeline")
	rec := htmlreport.New(tl, m)
	l := htmlreport.NewManagerLane("tungsten", tl)
	if _, err := sim.ReplayContext(context.Background(), tl, m, rec, l); err != nil {
		t.Fatal(err)
	}
	rec.Managers(l)
	var c bytes.Buffer
	if err := rec.WriteSVG(&c); err != nil {
		t.Fatal(err)
	}
	s := c.String()
	if !strings.Contains(s, `data-manager="tungsten"`) || strings.Contains(s, "tungsten analysis") || strings.Contains(s, "tungsten: no write") || !strings.Contains(s, "tungsten: failover at 03:14:") {
		t.Errorf("the Tungsten lane of a hard death:\n%s", s[strings.Index(s, "mlane"):][:600])
	}
}

// managersJS reads the managers' lanes off a loaded page: each lane's manager and top, the
// first node lane's top, and each decision mark's time and x.
const managersJS = `(() => {
const svg = document.getElementById("chart"), plot = document.getElementById("plot"), s = svg.getBoundingClientRect(), k = s.width / svg.viewBox.baseVal.width;
const ml = [...document.querySelectorAll("g.mlane")];
return JSON.stringify({
  managers: ml.map(g => g.dataset.manager), tops: ml.map(g => g.getBoundingClientRect().top),
  nodeTop: document.querySelector("g.lane").getBoundingClientRect().top,
  left: s.left + k * svg.dataset.plotx, width: k * svg.dataset.plotw, span: +svg.dataset.span,
  marks: [...plot.querySelectorAll(".mr, .mn")].map(p => { const b = p.getBoundingClientRect(); return {t: +p.dataset.t, x: b.left + b.width / 2, title: p.querySelector("title").textContent}; }),
});
})()`

// TestManagersInBrowser loads failsim report --managers tungsten,orchestrator's page of the
// lagging replica in Chromium: the managers' lanes, Tungsten's first, sit above the nodes'
// lanes; each decision mark is at its time on the one axis (within a pixel); the page reports
// no error and fetches nothing; its screenshot is not blank.
func TestManagersInBrowser(t *testing.T) {
	page, _ := renderManagers(t, "../testdata/incidents/lagging-replica.timeline", true)
	bctx := newBrowser(t)
	tctx, pl, url := open(t, bctx, page)
	raw, err := chromedp.Run(tctx, chromedp.Evaluate[string](managersJS))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Managers []string  `json:"managers"`
		Tops     []float64 `json:"tops"`
		NodeTop  float64   `json:"nodeTop"`
		Left     float64   `json:"left"`
		Width    float64   `json:"width"`
		Span     float64   `json:"span"`
		Marks    []struct {
			T     float64 `json:"t"`
			X     float64 `json:"x"`
			Title string  `json:"title"`
		} `json:"marks"`
	}
	if err := json.Unmarshal([]byte(raw), &f); err != nil {
		t.Fatal(err)
	}
	clean(t, pl, url)
	if !slices.Equal(f.Managers, []string{"tungsten", "orchestrator"}) || len(f.Tops) != 2 || !(f.Tops[0] < f.Tops[1] && f.Tops[1] < f.NodeTop) {
		t.Errorf("managers %q at %v, the first node lane at %g: want tungsten then orchestrator above it", f.Managers, f.Tops, f.NodeTop)
	}
	var ts []float64
	for _, m := range f.Marks {
		ts = append(ts, m.T)
		if want := f.Left + m.T/f.Span*f.Width; math.Abs(m.X-want) > 1 {
			t.Errorf("mark %q of t=%g at x=%.1f, want %.1f", m.Title, m.T, m.X, want)
		}
	}
	if !slices.Equal(ts, []float64{849, 871}) { // Tungsten's failover at 03:14:09, Orchestrator's recovery at 03:14:31
		t.Errorf("marks at %v, want 849 and 871", ts)
	}
	shot, err := chromedp.Run(tctx, chromedp.Screenshot(chromedp.ID("chart")))
	if err != nil {
		t.Fatal(err)
	}
	if n, ink := colours(t, shot); n < 8 || ink < 0.1 {
		t.Errorf("the chart's screenshot has %d colours and %.0f%% ink: blank", n, 100*ink)
	}
}
