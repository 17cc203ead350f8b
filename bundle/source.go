package bundle

import (
	"fmt"
	"unicode/utf8"
)

// Source is one line of a bundle's file: where it stood and what it says.
type Source struct {
	File string // the file's name, as the bundle's reader names it
	Line int    // 1-based
	Text string // the line, without its line break
}

// maxQuote is the most bytes of a line a comment quotes; a longer line is cut, and ends "...".
const maxQuote = 240

// String writes the source as a comment quotes it: "file:line: text", the text trimmed of
// cctrl's table borders and cut at maxQuote bytes.
func (s Source) String() string {
	t := cells(s.Text)
	if len(t) > maxQuote {
		cut := maxQuote
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut] + "..."
	}
	return fmt.Sprintf("%s:%d: %s", s.File, s.Line, t)
}

// Note is what a parser or the importer read but could not place in a timeline: the lines
// and why.
type Note struct {
	Lines []Source
	Why   string
}
