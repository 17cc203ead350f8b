package htmlreport

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// labelGap is the pixels between a label and the time it names (its mark's line).
const labelGap = 5

// labelRow lays out the labels of one row of text, left to right in time order, so that none
// overlaps another or runs past the plot: each label sits labelGap right of its time, or left
// of it when it would run past the plot's right edge; one that would overlap the label before
// it is hidden until a zoom makes room. The page's script lays them out again the same way at
// every zoom (data-t, data-w, data-row).
type labelRow struct {
	c    *chart
	free float64 // the first x after the last label shown
}

func (c *chart) labelRow() *labelRow { return &labelRow{c: c} }

// text writes a label of class cls naming time at, at height y, with a hover title (none when
// ""); charW is about how wide one of its characters is drawn, in pixels.
func (l *labelRow) text(at time.Duration, y int, cls, word, title string, charW float64) {
	c := l.c
	w := float64(utf8.RuneCountInString(word)) * charW
	x, left, anchor := labelPlace(c.x(at), w)
	hide := ""
	if left < l.free {
		hide = ` display="none"`
	} else {
		l.free = left + w + 6
	}
	t := ""
	if title != "" {
		t = "<title>" + esc(title) + "</title>"
	}
	fmt.Fprintf(c.b, `<text x="%.1f" y="%d" class="%s" text-anchor="%s" data-t="%s" data-w="%.0f" data-row="%d"%s>%s%s</text>`+"\n", x, y, cls, anchor, sec(at), w, y, hide, esc(word), t)
}

// labelPlace returns where a label w pixels wide naming the time at x goes: its anchor's x,
// its left edge and the anchor (start: right of the time; end: left of it, when right of it
// would run past the plot's right edge).
func labelPlace(x, w float64) (ax, left float64, anchor string) {
	if x+labelGap+w <= labelW+plotW {
		return x + labelGap, x + labelGap, "start"
	}
	return x - labelGap, x - labelGap - w, "end"
}
