package propspec_test

import (
	"strings"
	"testing"

	"github.com/failsim/failsim/propspec"
)

func TestParseSpec(t *testing.T) {
	for in, want := range map[string]string{
		"single-master":            "",
		"single-master=":           "",
		"detects-death-within":     "",
		"detects-death-within=90s": "",
		"detects-death-within=x":   `detects-death-within: "x" is not a positive duration such as 90s or 2m`,
		"detects-death-within=0s":  `detects-death-within: "0s" is not a positive duration such as 90s or 2m`,
		"nope":                     `unknown property "nope": want one of no-false-failover, detects-death-within, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets, max-outage, no-acked-write-lost, no-split-brain, no-fence-without-quorum, minority-shuns-within, majority-keeps-writer-within`,
		"self-heal-resets=1":       `self-heal-resets takes no argument, got "1"`,
		"max-outage=90s":           "",
		"max-outage":               `max-outage takes one duration, such as max-outage=90s`,
		"max-outage=long":          `max-outage: "long" is not a duration such as 90s`,
		"no-acked-write-lost":      "",
		"no-acked-write-lost=3":    `no-acked-write-lost takes no argument, got "3"`,
	} {
		s, err := propspec.ParseSpec(in)
		if (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Errorf("ParseSpec(%q) = %v, want %q", in, err, want)
		}
		if err == nil && s.String() != strings.TrimSuffix(strings.Replace(in, "=", " ", 1), " ") {
			t.Errorf("ParseSpec(%q).String() = %q", in, s)
		}
	}
	if _, err := propspec.NewSpec(propspec.DetectsDeathWithin, []string{"1m", "2m"}); err == nil || err.Error() != `detects-death-within takes at most one duration, got "1m 2m"` {
		t.Errorf("two durations: %v", err)
	}
	s, _ := propspec.ParseSpec("detects-death-within=90s")
	if s.Within() != 90e9 || s.Duration() != 90e9 {
		t.Errorf("Within() = %v, Duration() = %v", s.Within(), s.Duration())
	}
	if s, _ := propspec.ParseSpec("no-split-brain=20s"); s.Within() != 0 || s.Duration() != 20e9 {
		t.Errorf("no-split-brain=20s: Within() = %v, Duration() = %v", s.Within(), s.Duration())
	}
}
