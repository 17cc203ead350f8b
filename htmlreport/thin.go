package htmlreport

import (
	"fmt"
	"time"
)

// maxElements is about the most bands and marks the chart draws, whatever the run: a row is
// given its share of it (at least minRowShare), and a row with more spans than its share
// merges the narrow ones (thin). The page stays one a browser opens, and its size and the
// memory it takes to write stay bounded, whatever the timeline's length.
const (
	maxElements = 60000
	minRowShare = 200
)

// rowShare is the most spans a row of c draws one by one.
func (c *chart) rowShare() int {
	rows := 8 + len(c.r.nodes)*8
	return max(minRowShare, maxElements/rows)
}

// thinRow is the row being drawn when it has more spans than its share: spans narrower than w
// are merged into one band until it is w wide.
type thinRow struct {
	y, h     int
	what     string        // the row, as a merged band's title names it: "db1 state"
	w        time.Duration // the narrowest span drawn alone
	n        int           // spans pending
	from, to time.Duration
	cls      string // the first pending span's
	title    string
}

// row starts a row of n spans at y, h pixels high, named what: band thins it when n is over
// the row's share. It ends the row before.
func (c *chart) row(y, h, n int, what string) {
	c.endRow()
	if share := c.rowShare(); n > share {
		c.thin = &thinRow{y: y, h: h, what: what, w: max(c.span/time.Duration(share/2), c.minW())}
	}
}

// endRow draws what the thinned row has pending, and ends it.
func (c *chart) endRow() {
	if t := c.thin; t != nil {
		c.thin = nil
		c.flushThin(t)
	}
}

// thinBand takes a band of the thinned row t: drawn alone when it is at least t.w wide,
// otherwise merged with its neighbours.
func (c *chart) thinBand(t *thinRow, a, b time.Duration, cls, title string) {
	if t.n > 0 && a-t.from >= t.w {
		c.flushThin(t)
	}
	if b-a >= t.w && t.n == 0 {
		c.drawBand(a, b, t.y, t.h, cls, title)
		return
	}
	if t.n == 0 {
		t.from, t.to, t.cls, t.title = a, b, cls, title
	}
	t.n++
	t.to = max(t.to, b)
}

// flushThin draws t's pending spans: one alone as it is, more as one grey band titled with how
// many it merged.
func (c *chart) flushThin(t *thinRow) {
	switch {
	case t.n == 1:
		c.drawBand(t.from, t.to, t.y, t.h, t.cls, t.title)
	case t.n > 1:
		c.drawBand(t.from, t.to, t.y, t.h, "mx", fmt.Sprintf("%s: %d changes %s, merged into one band to keep the page small (failsim replay lists them); the first: %s", t.what, t.n, c.between(t.from, t.to), t.title))
	}
	t.n = 0
}

// groups splits n instants (at(k), in time order) into the runs a row draws as one mark each:
// every instant alone when n is within the row's share; otherwise runs whose instants lie
// within a share's width of time of the run's first. Each group is [first, last] indices.
func (c *chart) groups(n int, at func(k int) time.Duration) [][2]int {
	out := make([][2]int, 0, min(n, c.rowShare()))
	share := c.rowShare()
	w := time.Duration(0)
	if n > share {
		w = max(c.span/time.Duration(share/2), c.minW())
	}
	for k := 0; k < n; {
		j := k + 1
		for w > 0 && j < n && at(j)-at(k) < w {
			j++
		}
		out = append(out, [2]int{k, j - 1})
		k = j
	}
	return out
}

// more is what a mark's title adds when it stands for a group of marks: "" for one.
func (c *chart) more(g [2]int, at func(k int) time.Duration) string {
	if g[1] == g[0] {
		return ""
	}
	return fmt.Sprintf(" (and %d more to %s, merged into this mark to keep the page small: failsim replay lists them)", g[1]-g[0], c.clock(at(g[1])))
}
