package htmlreport

import (
	"html"
	"strings"
	"unicode/utf8"
)

// esc escapes s for the text or an attribute of the page and the chart. Beyond what
// html.EscapeString escapes, it replaces what XML 1.0 forbids in a document (a control
// character other than tab, newline and carriage return; U+FFFE, U+FFFF) and each byte of
// invalid UTF-8 with U+FFFD, the replacement character: a file name with a control character in
// it still gives a well-formed SVG, and shows that something was there.
func esc(s string) string {
	if xmlSafe(s) {
		return html.EscapeString(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !xmlChar(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
		i += n
	}
	return html.EscapeString(b.String())
}

// xmlSafe reports whether every rune of s is valid UTF-8 that XML allows.
func xmlSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			if !utf8.ValidString(s) {
				return false
			}
			for _, r := range s {
				if !xmlChar(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

// xmlChar reports whether XML 1.0 allows r in a document (its production Char).
func xmlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
		return false
	}
	return r <= 0x10FFFF
}

// maxNameRunes is the most runes of a node's name the chart writes; a longer name is cut to
// that many runes, the last an ellipsis. The event log under the chart keeps the whole name.
const maxNameRunes = 24

// shortName returns name as the chart writes it (maxNameRunes).
func shortName(name string) string {
	if utf8.RuneCountInString(name) <= maxNameRunes {
		return name
	}
	var b strings.Builder
	n := 0
	for _, r := range name {
		if n == maxNameRunes-1 {
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String() + "…"
}
