package fault

import (
	"strings"
	"testing"
	"time"
)

func TestParseToxics(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Fault
		out  string
	}{
		{"latency 200ms", Fault{Kind: Latency, Delay: 200 * time.Millisecond}, "latency 200ms"},
		{"latency 200ms jitter 50ms upstream", Fault{Kind: Latency, Delay: 200 * time.Millisecond, Jitter: 50 * time.Millisecond, Stream: Upstream}, "latency 200ms jitter 50ms upstream"},
		{"latency downstream 1s", Fault{Kind: Latency, Delay: time.Second}, "latency 1s"},
		{"bandwidth 10KB/s", Fault{Kind: Bandwidth, Rate: 10}, "bandwidth 10KB/s"},
		{"slow-close 2s", Fault{Kind: SlowClose, Delay: 2 * time.Second}, "slow-close 2s"},
		{"timeout 0", Fault{Kind: Timeout}, "timeout 0"},
		{"timeout 5s upstream", Fault{Kind: Timeout, Delay: 5 * time.Second, Stream: Upstream}, "timeout 5s upstream"},
		{"reset-peer", Fault{Kind: ResetPeer}, "reset-peer"},
		{"reset-peer 1500ms", Fault{Kind: ResetPeer, Delay: 1500 * time.Millisecond}, "reset-peer 1.5s"},
		{"slicer 64", Fault{Kind: Slicer, Size: 64}, "slicer 64"},
		{"slicer 64 delay 10us variation 16", Fault{Kind: Slicer, Size: 64, Variation: 16, Delay: 10 * time.Microsecond}, "slicer 64 variation 16 delay 10µs"},
		{"limit-data 4096", Fault{Kind: LimitData, Bytes: 4096}, "limit-data 4096"},
	} {
		got, err := Parse(strings.Fields(c.in))
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			continue
		}
		if got.String() != c.out {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got.String(), c.out)
		}
		if !got.Kind.Wire() || !got.Kind.Toxiproxy() {
			t.Errorf("%s: a toxiproxy toxic is a wire fault", got.Kind)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"latency", `latency takes a duration and an optional jitter, e.g. "latency 200ms jitter 50ms"`},
		{"latency 0s", `latency: "0s" is not a positive duration such as 200ms or 2s`},
		{"latency 1500us", `latency: "1500us" is finer than toxiproxy's unit, 1ms`},
		{"latency 1s upstream downstream", `latency: the stream is given twice`},
		{"bandwidth 10", `bandwidth: "10" is not a positive rate such as 10KB/s`},
		{"bandwidth 0KB/s", `bandwidth: "0KB/s" is not a positive rate such as 10KB/s`},
		{"timeout", `timeout takes one duration, 0 for never, e.g. "timeout 5s"`},
		{"reset-peer -1s", `reset-peer: "-1s" is not a duration such as 200ms or 2s`},
		{"slicer 64 variation 64", `slicer: variation "64" is not a byte count from 0 to below the size 64`},
		{"slicer 64 delay 1ns", `slicer: "1ns" is finer than toxiproxy's unit, 1µs`},
		{"slicer 64 variation 1 variation 2", `slicer: "variation" given twice`},
		{"limit-data 0", `limit-data: "0" is not a positive byte count`},
	} {
		_, err := Parse(strings.Fields(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	if Freeze.Toxiproxy() || Unreachable.Wire() || Unreachable.Toxiproxy() {
		t.Error("freeze is failsim's own; unreachable is the simulator's")
	}
}
