package sweep

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The picture's format.
const (
	SVG = "svg"
	PNG = "png"
)

var (
	grey  = color.RGBA{R: 140, G: 140, B: 140, A: 255}
	blue  = color.RGBA{R: 31, G: 90, B: 180, A: 255}
	red   = color.RGBA{R: 210, G: 40, B: 30, A: 255}
	never = color.RGBA{R: 60, G: 60, B: 60, A: 255}
)

// panel is the size of one plot of the picture.
var panelW, panelH = 7 * vg.Inch, 5 * vg.Inch

// Picture draws the result in format (SVG or PNG): the time to fence a dead master (p95)
// against the false-failover rate, one point per setting, the Pareto frontier drawn and the
// statemap in force marked; for a grid of two axes, heat maps of both figures beside it. With
// one family run, the one figure measured against the first axis.
func (r *Result) Picture(format string) ([]byte, error) {
	plots := []*plot.Plot{r.tradePlot()}
	if len(r.Grid.Axes) == 2 && len(r.Grid.Axes[0].Values) > 1 && len(r.Grid.Axes[1].Values) > 1 {
		if r.InForce.Benign != nil {
			plots = append(plots, r.heatPlot("false failovers on benign traces (%)", func(p *Point) float64 { return 100 * p.Benign.Rate }))
		}
		if r.InForce.Fatal != nil {
			plots = append(plots, r.heatPlot("time to fence a dead master, p95 (s)", func(p *Point) float64 {
				if p.Fatal.P95 == nil {
					return math.NaN()
				}
				return *p.Fatal.P95
			}))
		}
		if r.InForce.Partition != nil {
			plots = append(plots, r.heatPlot("split brain per partition trace, p95 (s)", func(p *Point) float64 { return p.Partition.SplitBrainP95 }))
		}
	}
	w, h := panelW*vg.Length(len(plots)), panelH
	var c vg.CanvasWriterTo
	switch format {
	case SVG:
		c = vgsvg.New(w, h)
	case PNG:
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))}
	default:
		return nil, fmt.Errorf("picture format %q: want svg or png", format)
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Inch / 4, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// plotValue is an axis value as a plot's coordinate: ticks, or seconds.
func plotValue(a Axis, v int64) float64 {
	if a.ticks() {
		return float64(v)
	}
	return time.Duration(v).Seconds()
}

// axisLabel names an axis on a plot.
func axisLabel(a Axis) string {
	if a.ticks() {
		return a.Name + " (ticks of 10 s)"
	}
	return a.Name + " (s)"
}

// setting writes p's values for a label: "8", or "8, 3s".
func (r *Result) setting(p *Point) string {
	var s []string
	for k, a := range r.Grid.Axes {
		s = append(s, a.Format(p.Values[k]))
	}
	return strings.Join(s, ", ")
}

func (r *Result) names() string {
	var s []string
	for _, a := range r.Grid.Axes {
		s = append(s, a.Name)
	}
	return strings.Join(s, " × ")
}

// tradePlot is the trade: p95 time to fence against false-failover rate.
func (r *Result) tradePlot() *plot.Plot {
	p := plot.New()
	all := r.Points
	if !r.InForce.inGrid(r) {
		all = append(all[:len(all):len(all)], r.InForce)
	}
	var x, y func(*Point) (float64, bool)
	switch {
	case r.InForce.Benign != nil && r.InForce.Fatal != nil:
		p.Title.Text = fmt.Sprintf("failsim sweep: %s\n%d benign and %d fatal traces a setting", r.names(), r.Run.BenignTraces, r.Run.FatalTraces)
		p.X.Label.Text = "false failovers on benign traces (%)"
		p.Y.Label.Text = "time to fence a dead master, p95 (s)"
		x = func(q *Point) (float64, bool) { return 100 * q.Benign.Rate, true }
		y = func(q *Point) (float64, bool) {
			if q.Fatal.P95 == nil {
				return 0, false
			}
			return *q.Fatal.P95, true
		}
	case r.InForce.Benign != nil:
		p.Title.Text = fmt.Sprintf("failsim sweep: %s\n%d benign traces a setting", r.names(), r.Run.BenignTraces)
		p.X.Label.Text = axisLabel(r.Grid.Axes[0])
		p.Y.Label.Text = "false failovers on benign traces (%)"
		x = func(q *Point) (float64, bool) { return plotValue(r.Grid.Axes[0], q.Values[0]), true }
		y = func(q *Point) (float64, bool) { return 100 * q.Benign.Rate, true }
	case r.InForce.Partition != nil:
		p.Title.Text = fmt.Sprintf("failsim sweep: %s\n%d partition traces a setting", r.names(), r.Run.PartitionTraces)
		p.X.Label.Text = axisLabel(r.Grid.Axes[0])
		p.Y.Label.Text = "split brain per partition trace, p95 (s)"
		x = func(q *Point) (float64, bool) { return plotValue(r.Grid.Axes[0], q.Values[0]), true }
		y = func(q *Point) (float64, bool) { return q.Partition.SplitBrainP95, true }
	default:
		p.Title.Text = fmt.Sprintf("failsim sweep: %s\n%d fatal traces a setting", r.names(), r.Run.FatalTraces)
		p.X.Label.Text = axisLabel(r.Grid.Axes[0])
		p.Y.Label.Text = "time to fence a dead master, p95 (s)"
		x = func(q *Point) (float64, bool) { return plotValue(r.Grid.Axes[0], q.Values[0]), true }
		y = func(q *Point) (float64, bool) {
			if q.Fatal.P95 == nil {
				return 0, false
			}
			return *q.Fatal.P95, true
		}
	}
	xy := func(q *Point) (plotter.XY, bool) {
		a, ok1 := x(q)
		b, ok2 := y(q)
		return plotter.XY{X: a, Y: b}, ok1 && ok2
	}
	var pts, front plotter.XYs
	var frontPts []*Point
	undrawn := 0
	for _, q := range all {
		v, ok := xy(q)
		if !ok {
			undrawn++
			continue
		}
		pts = append(pts, v)
		if q.Pareto {
			frontPts = append(frontPts, q)
		}
	}
	if undrawn > 0 {
		p.Title.Text += fmt.Sprintf("; %d never fenced at p95, not drawn", undrawn)
	}
	slices.SortStableFunc(frontPts, func(a, b *Point) int {
		return cmp.Or(cmp.Compare(a.Benign.Rate, b.Benign.Rate), cmp.Compare(*a.Fatal.P95, *b.Fatal.P95))
	})
	var labels []string
	for _, q := range frontPts {
		v, _ := xy(q)
		front = append(front, v)
		labels = append(labels, r.setting(q))
	}
	if len(pts) > 0 {
		s, _ := plotter.NewScatter(pts)
		s.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add("a setting", s)
	}
	if len(front) > 0 {
		l, _ := plotter.NewLine(front)
		l.LineStyle = draw.LineStyle{Color: blue, Width: vg.Points(1.5)}
		s, _ := plotter.NewScatter(front)
		s.GlyphStyle = draw.GlyphStyle{Color: blue, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		lb, _ := plotter.NewLabels(plotter.XYLabels{XYs: front, Labels: labels})
		for i := range lb.TextStyle {
			lb.TextStyle[i].Color = blue
			lb.TextStyle[i].Font.Size = vg.Points(8)
		}
		lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
		p.Add(l, s, lb)
		p.Legend.Add("Pareto frontier", l, s)
	}
	if v, ok := xy(r.InForce); ok {
		s, _ := plotter.NewScatter(plotter.XYs{v})
		s.GlyphStyle = draw.GlyphStyle{Color: red, Radius: vg.Points(6), Shape: draw.PyramidGlyph{}}
		p.Add(s)
		p.Legend.Add("in force: "+r.setting(r.InForce), s)
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	fixRange(&p.X)
	fixRange(&p.Y)
	return p
}

// fixRange starts an axis at 0 and keeps it from being a point.
func fixRange(a *plot.Axis) {
	a.Min = min(a.Min, 0)
	if a.Max <= a.Min {
		a.Max = a.Min + 1
	}
}

// heat is a 2-D grid's figure, for a heat map: the first axis across, the second up.
type heat struct {
	r *Result
	z func(*Point) float64
}

func (h heat) Dims() (c, r int) {
	return len(h.r.Grid.Axes[0].Values), len(h.r.Grid.Axes[1].Values)
}

func (h heat) Z(c, r int) float64 {
	return h.z(h.r.Points[c*len(h.r.Grid.Axes[1].Values)+r])
}

func (h heat) X(c int) float64 { return plotValue(h.r.Grid.Axes[0], h.r.Grid.Axes[0].Values[c]) }
func (h heat) Y(r int) float64 { return plotValue(h.r.Grid.Axes[1], h.r.Grid.Axes[1].Values[r]) }

// heatPlot draws figure z over the grid.
func (r *Result) heatPlot(title string, z func(*Point) float64) *plot.Plot {
	p := plot.New()
	g := heat{r: r, z: z}
	hm := plotter.NewHeatMap(g, moreland.SmoothBlueRed().Palette(255))
	if math.IsInf(hm.Min, 0) || math.IsNaN(hm.Min) { // every cell NaN
		hm.Min, hm.Max = 0, 1
	}
	if hm.Max <= hm.Min {
		hm.Max = hm.Min + 1
	}
	hm.NaN = never
	p.Add(hm)
	p.Title.Text = fmt.Sprintf("%s\nblue %s to red %s; dark grey: never; black triangle: in force", title, trim(hm.Min), trim(hm.Max))
	p.X.Label.Text = axisLabel(r.Grid.Axes[0])
	p.Y.Label.Text = axisLabel(r.Grid.Axes[1])
	p.X.Tick.Marker = valueTicks(r.Grid.Axes[0])
	p.Y.Tick.Marker = valueTicks(r.Grid.Axes[1])
	in := r.InForce
	s, _ := plotter.NewScatter(plotter.XYs{{X: plotValue(r.Grid.Axes[0], in.Values[0]), Y: plotValue(r.Grid.Axes[1], in.Values[1])}})
	s.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(6), Shape: draw.PyramidGlyph{}}
	p.Add(s)
	return p
}

// valueTicks marks an axis's values, at most about a dozen of them labelled.
func valueTicks(a Axis) plot.ConstantTicks {
	every := (len(a.Values) + 11) / 12
	var ts []plot.Tick
	for i, v := range a.Values {
		t := plot.Tick{Value: plotValue(a, v)}
		if i%every == 0 {
			t.Label = a.Format(v)
		}
		ts = append(ts, t)
	}
	return ts
}

func trim(f float64) string { return fmt.Sprintf("%.3g", f) }
