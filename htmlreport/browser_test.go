package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

var update = flag.Bool("update", false, "write the README's picture, docs/report-ebs-stall.png, from the browser (TestREADMEPicture)")

// chromium returns the path of the browser the tests render in: Debian's chromium. Without
// it the browser tests skip, naming the package, except under CI=true, where they fail.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no chromium to render the report in: install Debian's chromium package (apt-get install -y chromium; .ci/run does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// newBrowser starts a headless chromium with a fresh profile for the test; it stops with the
// test. Nothing it loads comes from further than a temporary file, and it resolves no name.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1600, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// pageLog is what a tab reported while the test looked at it: console errors, uncaught
// exceptions, error log entries (a Content-Security-Policy refusal among them) and every
// request it made.
type pageLog struct {
	mu       sync.Mutex
	errors   []string
	requests []string
}

func (p *pageLog) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value))
			}
			p.errors = append(p.errors, "console."+string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		p.errors = append(p.errors, "exception: "+(&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			p.errors = append(p.errors, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	}
}

// open loads the page from a temporary file in a new tab.
func open(t *testing.T, bctx context.Context, page []byte) (context.Context, *pageLog, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	pl := &pageLog{}
	tctx, cancel := chromedp.NewContext(bctx, chromedp.WithListener(pl.listen))
	t.Cleanup(cancel)
	url := "file://" + file
	enable := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
		return err
	})
	if err := chromedp.Do(tctx, enable, chromedp.Navigate(url)); err != nil {
		t.Fatalf("load the report: %v", err)
	}
	return tctx, pl, url
}

// facts is what the tests read off a loaded page.
type facts struct {
	Lanes    []string  `json:"lanes"`
	LaneTops []float64 `json:"laneTops"`
	Left     float64   `json:"left"`
	Width    float64   `json:"width"`
	Span     float64   `json:"span"`
	ViewBox  string    `json:"viewBox"`
	Marks    []struct {
		T     float64 `json:"t"`
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
		Title string  `json:"title"`
	} `json:"marks"`
	Lost     []lostMark   `json:"lost"`
	Writes   int          `json:"writes"`
	Longest  []string     `json:"longest"`
	Ticks    []string     `json:"ticks"`
	Labels   [][2]float64 `json:"labels"`
	Verdict  string       `json:"verdict"`
	Titles   int          `json:"titles"`
	Elements int          `json:"elements"`
	Rows     []string     `json:"rows"`
	Splits   []struct {
		T     float64 `json:"t"`
		X     float64 `json:"x"`
		Title string  `json:"title"`
	} `json:"splits"`
}

const factsJS = `(() => {
const svg = document.getElementById("chart"), plot = document.getElementById("plot"), s = svg.getBoundingClientRect(), k = s.width / svg.viewBox.baseVal.width;
const lanes = [...document.querySelectorAll("g.lane")];
return JSON.stringify({
  lanes: lanes.map(g => g.dataset.node), laneTops: lanes.map(g => g.getBoundingClientRect().top),
  left: s.left + k * svg.dataset.plotx, width: k * svg.dataset.plotw, span: +svg.dataset.span, viewBox: plot.getAttribute("viewBox"),
  marks: [...plot.querySelectorAll(".fo")].map(p => { const b = p.getBoundingClientRect(); return {t: +p.dataset.t, x: b.left + b.width / 2, y: b.top + 30, title: p.querySelector("title").textContent}; }),
  lost: [...plot.querySelectorAll(".lw")].map(p => { const b = p.getBoundingClientRect(); return {t: +p.dataset.t, x: b.left + b.width / 2, title: p.querySelector("title").textContent}; }),
  writes: plot.querySelectorAll(".wk, .wf").length,
  longest: [...plot.querySelectorAll(".wl")].map(e => e.querySelector("title").textContent),
  ticks: [...document.querySelectorAll("#ticks text")].map(e => e.textContent),
  labels: [...document.querySelectorAll("text.dl")].filter(e => e.getAttribute("display") != "none").map(e => { const b = e.getBoundingClientRect(); return [b.left, b.right]; }),
  verdict: document.getElementById("verdict").textContent,
  titles: plot.querySelectorAll("title").length,
  elements: svg.querySelectorAll("*").length + 1,
  rows: [...svg.querySelectorAll(":scope > text.rl")].map(e => e.textContent),
  splits: [...plot.querySelectorAll(".sb, .sz")].map(p => { const b = p.getBoundingClientRect(); return {t: +p.dataset.t, x: p.classList.contains("sz") ? b.left + b.width / 2 : b.left, title: p.querySelector("title").textContent}; }),
});
})()`

func readFacts(t *testing.T, tctx context.Context) facts {
	t.Helper()
	s, err := chromedp.Run(tctx, chromedp.Evaluate[string](factsJS))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	var f facts
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// apart fails the test when two failover labels shown overlap.
func apart(t *testing.T, f facts) {
	t.Helper()
	for k := 1; k < len(f.Labels); k++ {
		if f.Labels[k][0] < f.Labels[k-1][1] {
			t.Errorf("failover labels overlap: %v then %v", f.Labels[k-1], f.Labels[k])
		}
	}
}

// clean fails the test for any error the page reported and any request beyond the page itself.
func clean(t *testing.T, pl *pageLog, url string) {
	t.Helper()
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for _, e := range pl.errors {
		t.Errorf("the page reported an error: %s", e)
	}
	for _, r := range pl.requests {
		if r != url {
			t.Errorf("the page fetched %s: a report fetches nothing", r)
		}
	}
}

// colours counts the distinct colours of a PNG image and the share of its pixels that are not
// white.
func colours(t *testing.T, shot []byte) (int, float64) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	seen := map[[3]uint32]bool{}
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r>>8 < 250 || g>>8 < 250 || bl>>8 < 250 {
				inked++
			}
		}
	}
	return len(seen), float64(inked) / float64(b.Dx()*b.Dy())
}

// TestInBrowser renders the report of every shipped incident in headless chromium and looks at
// the page: no console error and nothing fetched, one lane per database node in cluster order, each
// failover's mark at the x of its time on the axis, the verdict's text, hover titles, and a
// screenshot of the chart that is not blank.
func TestInBrowser(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	if len(files) < 10 {
		t.Fatalf("want the ten shipped incidents, found %d", len(files))
	}
	bctx := newBrowser(t)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".timeline"), func(t *testing.T) {
			tl, m := load(t, file)
			page, _ := render(t, tl, m)
			tctx, pl, url := open(t, bctx, page.HTML)
			f := readFacts(t, tctx)
			clean(t, pl, url)
			apart(t, f)
			if nodes := tl.Names()[:len(tl.Nodes)]; !slices.Equal(f.Lanes, nodes) {
				t.Errorf("lanes %q, want one per database node in cluster order %q (a witness has none)", f.Lanes, nodes)
			}
			if !slices.IsSorted(f.LaneTops) {
				t.Errorf("lanes' tops %v: not top to bottom in cluster order", f.LaneTops)
			}
			if f.Span != tl.End.Seconds() || f.Width < 1000 {
				t.Errorf("axis of %gs over %gpx, want the run's %gs over the plot", f.Span, f.Width, tl.End.Seconds())
			}
			if len(f.Marks) != len(page.Failovers) {
				t.Errorf("%d failover marks, want %d (the verdict's failovers)", len(f.Marks), len(page.Failovers))
			}
			for k, fo := range page.Failovers {
				if k >= len(f.Marks) {
					break
				}
				mk := f.Marks[k]
				want := f.Left + fo.At.Seconds()/f.Span*f.Width
				if mk.T != fo.At.Seconds() || math.Abs(mk.X-want) > 1 {
					t.Errorf("failover at %v: mark of t=%g at x=%.1f, want x=%.1f (the axis: %gs over %.1fpx from %.1f)", fo.At, mk.T, mk.X, want, f.Span, f.Width, f.Left)
				}
				if !strings.Contains(mk.Title, "FAILOVER: master "+tl.Nodes[fo.Node].Name) {
					t.Errorf("failover mark's title %q does not say the failover", mk.Title)
				}
			}
			writes(t, f, tl, page)
			groupRows(t, f, tl, filepath.Base(file))
			if !strings.HasPrefix(f.Verdict, "verdict: "+page.Verdict[0]) {
				t.Errorf("the page's verdict %q, want it to start with %q", f.Verdict, "verdict: "+page.Verdict[0])
			}
			if f.Titles < 3*len(tl.Nodes) {
				t.Errorf("%d hover titles in the plot: want one for each band and mark", f.Titles)
			}
			shot, err := chromedp.Run(tctx, chromedp.Screenshot(chromedp.ID("chart")))
			if err != nil {
				t.Fatal(err)
			}
			if n, ink := colours(t, shot); n < 8 || ink < 0.1 {
				t.Errorf("the chart's screenshot has %d colours and %.0f%% ink: blank", n, 100*ink)
			}
		})
	}
}

// lostMark is a lost-writes mark as the page has it.
type lostMark struct {
	T     float64 `json:"t"`
	X     float64 `json:"x"`
	Title string  `json:"title"`
}

// writes checks the writes row: there exactly when the timeline has a workload, with one
// lost-writes mark at the x of each failover, titled with what it lost, one more at each merge
// that overwrote a side's master (the verdict's "overwritten at"), and the longest outage
// outlined.
func writes(t *testing.T, f facts, tl *timeline.Timeline, page rendered) {
	t.Helper()
	workload := tl.Repl != nil && tl.Repl.Workload
	if (f.Writes > 0) != workload {
		t.Fatalf("%d bands in the writes row; the timeline has a workload: %v", f.Writes, workload)
	}
	if !workload {
		if len(f.Lost) > 0 || len(f.Longest) > 0 {
			t.Errorf("no workload, yet %d lost-writes marks and %d longest outages", len(f.Lost), len(f.Longest))
		}
		return
	}
	var lost, merges []lostMark
	for _, mk := range f.Lost {
		if strings.HasPrefix(mk.Title, "merge at ") {
			merges = append(merges, mk)
			continue
		}
		lost = append(lost, mk)
	}
	overwritten := 0
	for _, line := range page.Verdict {
		if strings.Contains(line, " overwritten at ") {
			overwritten++
		}
	}
	if len(lost) != len(page.Failovers) || len(merges) != overwritten {
		t.Errorf("%d lost-writes marks of failovers and %d of merges, want one at each of the %d failovers and %d merges", len(lost), len(merges), len(page.Failovers), overwritten)
	}
	for k, fo := range page.Failovers {
		if k >= len(lost) {
			break
		}
		mk := lost[k]
		want := f.Left + fo.At.Seconds()/f.Span*f.Width
		if mk.T != fo.At.Seconds() || math.Abs(mk.X-want) > 1 {
			t.Errorf("failover at %v: lost-writes mark of t=%g at x=%.1f, want x=%.1f", fo.At, mk.T, mk.X, want)
		}
		if !strings.Contains(mk.Title, "lost ") || !strings.Contains(mk.Title, "promoted at position") {
			t.Errorf("lost-writes mark's title %q does not say what the failover lost", mk.Title)
		}
	}
	if o := page.Outage; o.Length() > 0 {
		if len(f.Longest) != 1 || !strings.Contains(f.Longest[0], fmt.Sprintf("(%s, ", o.Length())) {
			t.Errorf("longest outages marked: %q, want the one of %s", f.Longest, o.Length())
		}
	} else if len(f.Longest) > 0 {
		t.Errorf("no outage, yet a longest one marked: %q", f.Longest)
	}
}

// groupIncidents are the shipped incidents whose timelines have a witness, a partition or a
// host event: the ones whose chart draws the managers as a group.
var groupIncidents = []string{"flapping-switch.timeline", "host-crash.timeline", "partition-master.timeline", "partition-master-workload.timeline", "partition-witness.timeline", "two-node-split.timeline"}

// splitClock is the time a split-brain mark's title gives: its window's opening.
var splitClock = regexp.MustCompile(`^(?:split brain at|SPLIT BRAIN: .* writable at once from) (\d\d:\d\d:\d\d(?:\.\d+)?)`)

// groupRows checks the group's rows: there exactly for the group incidents, and each
// split-brain window's mark at the x of its opening, which its title gives, one a window the
// verdict counts.
func groupRows(t *testing.T, f facts, tl *timeline.Timeline, base string) {
	t.Helper()
	want := slices.Contains(groupIncidents, base)
	for _, row := range []string{"network", "primary", "split brain"} {
		if slices.Contains(f.Rows, row) != want {
			t.Errorf("row %q drawn: %v, want %v (rows %q)", row, !want, want, f.Rows)
		}
	}
	if !want {
		if len(f.Splits) > 0 {
			t.Errorf("no group rows, yet %d split-brain marks", len(f.Splits))
		}
		return
	}
	windows := 0
	for _, line := range strings.Split(f.Verdict, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "split brain: ") {
			windows++
		}
	}
	if len(f.Splits) != windows {
		t.Errorf("%d split-brain marks, want one for each of the verdict's %d windows", len(f.Splits), windows)
	}
	for _, sb := range f.Splits {
		m := splitClock.FindStringSubmatch(sb.Title)
		if m == nil {
			t.Errorf("split-brain mark's title %q gives no time", sb.Title)
			continue
		}
		if got := timeline.Clock(tl.Start, time.Duration(sb.T*float64(time.Second))); got != m[1] {
			t.Errorf("split-brain mark at t=%g (%s), its title says %s", sb.T, got, m[1])
		}
		if want := f.Left + sb.T/f.Span*f.Width; math.Abs(sb.X-want) > 1 {
			t.Errorf("split-brain mark of t=%g at x=%.1f, want x=%.1f", sb.T, sb.X, want)
		}
	}
}

// TestZoomInBrowser zooms in with the wheel on a failover: the mark stays under the pointer, the
// plot shows less time and the axis is relabelled; a double-click shows the whole run again.
func TestZoomInBrowser(t *testing.T) {
	bctx := newBrowser(t)
	tl, m := load(t, "../testdata/incidents/silent-death.timeline")
	page, _ := render(t, tl, m)
	tctx, pl, url := open(t, bctx, page.HTML)
	before := readFacts(t, tctx)
	if len(before.Marks) != 1 {
		t.Fatalf("%d failover marks, want 1", len(before.Marks))
	}
	// Wheel over the failover, at a whole pixel (a mouse event's clientX is one), a little off
	// the mark: zooming around the pointer, the time under the pointer stays put, so the mark's
	// distance from the pointer grows by the zoom's factor.
	mk := before.Marks[0]
	ptr := math.Round(mk.X)
	wheel := fmt.Sprintf(`(() => { const svg = document.getElementById("chart");
for (let i = 0; i < 12; i++) svg.dispatchEvent(new WheelEvent("wheel", {clientX: %f, clientY: %f, deltaY: -100, bubbles: true, cancelable: true}));
return true; })()`, ptr, mk.Y)
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](wheel)); err != nil {
		t.Fatal(err)
	}
	after := readFacts(t, tctx)
	var a, w float64
	if _, err := fmt.Sscanf(after.ViewBox, "%g 0 %g", &a, &w); err != nil || w > before.Span/10 {
		t.Fatalf("viewBox %q after zooming in 12 times: want a tenth of the run or less", after.ViewBox)
	}
	if want := ptr + (mk.X-ptr)*before.Span/w; math.Abs(after.Marks[0].X-want) > 1 {
		t.Errorf("the failover mark moved from x=%.1f to %.1f, want %.1f: the zoom is not around the pointer at %.0f (viewBox %q)", mk.X, after.Marks[0].X, want, ptr, after.ViewBox)
	}
	if after.ViewBox == before.ViewBox || slices.Equal(after.Ticks, before.Ticks) {
		t.Errorf("viewBox %q and ticks %q after zooming in: unchanged", after.ViewBox, after.Ticks)
	}
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`document.getElementById("chart").dispatchEvent(new MouseEvent("dblclick", {bubbles: true})), true`)); err != nil {
		t.Fatal(err)
	}
	if back := readFacts(t, tctx); back.ViewBox != before.ViewBox || !slices.Equal(back.Ticks, before.Ticks) {
		t.Errorf("after a double-click: viewBox %q, ticks %q; want the whole run again: %q, %q", back.ViewBox, back.Ticks, before.ViewBox, before.Ticks)
	}
	clean(t, pl, url)
}

// TestDayInBrowser opens the report of a day with 2,000 faults: it loads without error and has
// the elements the Go side counted.
func TestDayInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("a day's report in the browser: left out with -short")
	}
	bctx := newBrowser(t)
	tl := day(t)
	page, chart := render(t, tl, statemap.Default())
	tctx, pl, url := open(t, bctx, page.HTML)
	f := readFacts(t, tctx)
	clean(t, pl, url)
	apart(t, f)
	if len(f.Labels) == 0 {
		t.Fatal("no failover label shown on the day")
	}
	// Zoomed in on the first failovers, and back out by the script: still none overlaps.
	wheel := fmt.Sprintf(`(() => { const svg = document.getElementById("chart");
for (let i = 0; i < 16; i++) svg.dispatchEvent(new WheelEvent("wheel", {clientX: %f, clientY: 200, deltaY: -100, bubbles: true, cancelable: true}));
return true; })()`, math.Round(f.Labels[0][0]))
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](wheel)); err != nil {
		t.Fatal(err)
	}
	zoomed := readFacts(t, tctx)
	apart(t, zoomed)
	if len(zoomed.Labels) <= len(f.Labels) {
		t.Errorf("%d failover labels shown zoomed in, %d on the whole day: zooming in shows no more", len(zoomed.Labels), len(f.Labels))
	}
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`document.getElementById("chart").dispatchEvent(new MouseEvent("dblclick", {bubbles: true})), true`)); err != nil {
		t.Fatal(err)
	}
	apart(t, readFacts(t, tctx))
	n, _ := elements(t, chart)
	if f.Elements != n || len(f.Lanes) != 5 {
		t.Errorf("the browser sees %d chart elements and %d lanes, want %d and 5", f.Elements, len(f.Lanes), n)
	}
}

// TestREADMEPicture writes the README's picture, the EBS stall's report, with -update:
//
//	go test ./htmlreport -run READMEPicture -update
//
// Screenshots differ across Chromium versions and fonts, so it is not compared on every run.
func TestREADMEPicture(t *testing.T) {
	if !*update {
		t.Skip("writes docs/report-ebs-stall.png with -update")
	}
	bctx := newBrowser(t)
	tl, m := load(t, "../testdata/incidents/ebs-stall.timeline")
	tl.File = "testdata/incidents/ebs-stall.timeline"
	page, _ := render(t, tl, m)
	tctx, pl, url := open(t, bctx, page.HTML)
	shot, err := chromedp.Run(tctx, chromedp.Screenshot(chromedp.ID("picture")))
	if err != nil {
		t.Fatal(err)
	}
	clean(t, pl, url)
	if _, err := png.DecodeConfig(bytes.NewReader(shot)); err != nil {
		t.Fatal(err)
	}
	if len(shot) > 300<<10 {
		t.Fatalf("the picture is %d bytes, want under 300 KB", len(shot))
	}
	if err := os.WriteFile("../docs/report-ebs-stall.png", shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote docs/report-ebs-stall.png, %d bytes", len(shot))
}

var _ image.Image // image/png registers the decoder the colours count uses
