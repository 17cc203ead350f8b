package htmlreport

import (
	"fmt"
	"time"
)

// tickSteps are the axis's steps between labelled ticks, smallest first.
var tickSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour, 365 * 24 * time.Hour,
	10 * 365 * 24 * time.Hour, 50 * 365 * 24 * time.Hour,
}

// minTickGap is the fewest pixels between two labelled ticks.
const minTickGap = 100

// tickStep returns the step between the axis's ticks for a window of span on width pixels.
func tickStep(span time.Duration, width int) time.Duration {
	for _, s := range tickSteps {
		if span/s <= time.Duration(width/minTickGap) {
			return s
		}
	}
	return tickSteps[len(tickSteps)-1]
}

// ticks returns the ticks of the window from a to b (virtual time): the instants whose clock
// time, base seconds (the clock time of t=0, as Unix seconds of its zone) on, is a multiple of
// step.
func ticks(base int64, a, b, step time.Duration) []time.Duration {
	s := int64(step / time.Second)
	from := int64(a/time.Second) + base
	first := floorDiv(from+s-1, s) * s
	var out []time.Duration
	for t := time.Duration(first-base) * time.Second; t <= b; t += step {
		if t >= a {
			out = append(out, t)
		}
	}
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// tickLabel writes the clock time of a tick at local Unix second sec: its seconds when the step
// is under a minute, its date when the step is a day or more, and the date beside the time when
// the axis spans more than a day. The page's script writes the same when it zooms.
func tickLabel(sec int64, step, span time.Duration) string {
	t := time.Unix(sec, 0).UTC()
	switch {
	case step >= 24*time.Hour:
		return t.Format("2006-01-02")
	case step < time.Minute && span > 24*time.Hour:
		return t.Format("01-02 15:04:05")
	case step < time.Minute:
		return t.Format("15:04:05")
	case span > 24*time.Hour:
		return t.Format("01-02 15:04")
	}
	return t.Format("15:04")
}

// axis writes the ticks: a grid line across the plot and a label above it each.
func (c *chart) axis() {
	base := c.r.tl.Start.Unix()
	_, off := c.r.tl.Start.Zone()
	base += int64(off)
	step := tickStep(c.span, plotW)
	c.b.WriteString(`<g id="ticks">`)
	for _, t := range ticks(base, 0, c.span, step) {
		x := c.x(t)
		fmt.Fprintf(c.b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="gl"/><text x="%.1f" y="%d" text-anchor="middle" class="tl">%s</text>`,
			x, x, plotY, plotY+c.plotH, x, plotY-7, tickLabel(base+int64(t/time.Second), step, c.span))
	}
	c.b.WriteString("</g>\n")
}
