package fault

import (
	"strings"
	"testing"
	"time"
)

func TestParseDelay(t *testing.T) {
	f, err := Parse([]string{"delay", "1500ms"})
	if err != nil || f.Kind != Delay || f.Delay != 1500*time.Millisecond {
		t.Fatalf("Parse(delay 1500ms) = %+v, %v", f, err)
	}
	if s := f.String(); s != "delay 1.5s" {
		t.Errorf("String() = %q, want delay 1.5s", s)
	}
	if !Delay.Wire() {
		t.Error("delay is a wire fault: a proxy makes it real")
	}
	for _, c := range []struct{ in, want string }{
		{"delay", `delay takes one duration, e.g. "delay 500ms"`},
		{"delay 1s 2s", `delay takes one duration, e.g. "delay 500ms"`},
		{"delay 0s", `delay: "0s" is not a positive duration such as 500ms or 2s`},
		{"delay -1s", `delay: "-1s" is not a positive duration such as 500ms or 2s`},
		{"delay soon", `delay: "soon" is not a positive duration such as 500ms or 2s`},
		{"melt", `unknown fault "melt": want one of heal, refuse, reset, close, freeze, blackhole, stall, slow, delay, error, latency, bandwidth, slow-close, timeout, reset-peer, slicer, limit-data, unreachable, hostdown, probe`},
	} {
		_, err := Parse(strings.Fields(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzParse: no input panics, and a fault that parses writes itself back as words that parse
// to the same fault.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"delay 500ms", "slow 2s", "error 1045", "probe ok", "freeze", "delay", "delay 1h2m3.5s",
		"latency 200ms jitter 50ms upstream", "bandwidth 10KB/s", "slow-close 2s", "timeout 0", "timeout 5s downstream",
		"reset-peer", "reset-peer 1s", "slicer 64 variation 16 delay 10us", "limit-data 4096"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(strings.Fields(s))
		if err != nil {
			return
		}
		again, err := Parse(strings.Fields(got.String()))
		if err != nil || again != got {
			t.Fatalf("%q parsed to %+v, written %q, read back %+v, %v", s, got, got.String(), again, err)
		}
	})
}
