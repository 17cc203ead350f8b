package fault

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The words of toxiproxy's toxics, each with its toxic's arguments (toxics/*.go of
// Shopify/toxiproxy v2.5.0) and an optional stream word, upstream or downstream:
//
//	latency 200ms [jitter 50ms]                  toxics/latency.go: latency, jitter (ms)
//	bandwidth 10KB/s                             toxics/bandwidth.go: rate (KB/s)
//	slow-close 2s                                toxics/slow_close.go: delay (ms)
//	timeout 5s | timeout 0                       toxics/timeout.go: timeout (ms), 0 = never closes
//	reset-peer [1s]                              toxics/reset_peer.go: timeout (ms), default 0
//	slicer 64 [variation 16] [delay 10us]        toxics/slicer.go: average_size, size_variation, delay (µs)
//	limit-data 4096                              toxics/limit_data.go: bytes
//
// toxiproxy counts latency, slow_close, timeout and reset_peer in whole milliseconds and
// slicer's delay in whole microseconds; a duration finer than that is refused rather than
// rounded, so that what the simulator assumes is what the proxy does.

// parseToxic reads the arguments of a toxiproxy toxic f.Kind.
func parseToxic(f Fault, args []string) (Fault, error) {
	k := f.Kind
	var rest []string
	stream := false
	for _, a := range args {
		switch a {
		case "upstream", "downstream":
			if stream {
				return Fault{}, fmt.Errorf("%s: the stream is given twice", k)
			}
			stream = true
			if a == "upstream" {
				f.Stream = Upstream
			}
		default:
			rest = append(rest, a)
		}
	}
	usage := map[Kind]string{
		Latency:   `latency takes a duration and an optional jitter, e.g. "latency 200ms jitter 50ms"`,
		Bandwidth: `bandwidth takes a rate in KB/s, e.g. "bandwidth 10KB/s"`,
		SlowClose: `slow-close takes one duration, e.g. "slow-close 2s"`,
		Timeout:   `timeout takes one duration, 0 for never, e.g. "timeout 5s"`,
		ResetPeer: `reset-peer takes an optional duration, e.g. "reset-peer 1s"`,
		Slicer:    `slicer takes an average size in bytes, an optional variation and delay, e.g. "slicer 64 variation 16 delay 10us"`,
		LimitData: `limit-data takes a byte count, e.g. "limit-data 4096"`,
	}[k]
	bad := func() (Fault, error) { return Fault{}, fmt.Errorf("%s", usage) }
	switch k {
	case Latency:
		if len(rest) != 1 && !(len(rest) == 3 && rest[1] == "jitter") {
			return bad()
		}
		d, err := toxicDuration(k, rest[0], time.Millisecond, false)
		if err != nil {
			return Fault{}, err
		}
		f.Delay = d
		if len(rest) == 3 {
			j, err := toxicDuration(k, rest[2], time.Millisecond, true)
			if err != nil {
				return Fault{}, err
			}
			f.Jitter = j
		}
	case Bandwidth:
		if len(rest) != 1 {
			return bad()
		}
		n, ok := strings.CutSuffix(rest[0], "KB/s")
		r, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil || r <= 0 || r > 1<<40 {
			return Fault{}, fmt.Errorf("bandwidth: %q is not a positive rate such as 10KB/s", rest[0])
		}
		f.Rate = r
	case SlowClose:
		if len(rest) != 1 {
			return bad()
		}
		d, err := toxicDuration(k, rest[0], time.Millisecond, false)
		if err != nil {
			return Fault{}, err
		}
		f.Delay = d
	case Timeout, ResetPeer:
		if len(rest) > 1 || (k == Timeout && len(rest) == 0) {
			return bad()
		}
		if len(rest) == 1 {
			d, err := toxicDuration(k, rest[0], time.Millisecond, true)
			if err != nil {
				return Fault{}, err
			}
			f.Delay = d
		}
	case Slicer:
		if len(rest) == 0 || len(rest)%2 != 1 {
			return bad()
		}
		size, err := strconv.Atoi(rest[0])
		if err != nil || size <= 0 || size > 1<<30 {
			return Fault{}, fmt.Errorf("slicer: %q is not a positive size in bytes", rest[0])
		}
		f.Size = size
		seen := map[string]bool{}
		for i := 1; i < len(rest); i += 2 {
			w, v := rest[i], rest[i+1]
			if seen[w] {
				return Fault{}, fmt.Errorf("slicer: %q given twice", w)
			}
			seen[w] = true
			switch w {
			case "variation":
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n >= size {
					return Fault{}, fmt.Errorf("slicer: variation %q is not a byte count from 0 to below the size %d", v, size)
				}
				f.Variation = n
			case "delay":
				d, err := toxicDuration(k, v, time.Microsecond, true)
				if err != nil {
					return Fault{}, err
				}
				f.Delay = d
			default:
				return bad()
			}
		}
	case LimitData:
		if len(rest) != 1 {
			return bad()
		}
		n, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || n <= 0 {
			return Fault{}, fmt.Errorf("limit-data: %q is not a positive byte count", rest[0])
		}
		f.Bytes = n
	}
	return f, nil
}

// toxicDuration reads a duration that toxiproxy counts in whole units: "0" is zero when zero
// is allowed; otherwise a Go duration, a whole number of units, at most a year.
func toxicDuration(k Kind, s string, unit time.Duration, zero bool) (time.Duration, error) {
	what := "a positive duration"
	if zero {
		what = "a duration"
	}
	if s == "0" && zero {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil, d < 0, d == 0 && !zero, d > 365*24*time.Hour:
		return 0, fmt.Errorf("%s: %q is not %s such as 200ms or 2s", k, s, what)
	case d%unit != 0:
		return 0, fmt.Errorf("%s: %q is finer than toxiproxy's unit, %s", k, s, unit)
	}
	return d, nil
}

// toxicString writes a toxiproxy toxic in the words parseToxic reads; the stream only when it
// is upstream.
func toxicString(f Fault) string {
	s := f.Kind.String()
	switch f.Kind {
	case Latency:
		s += " " + f.Delay.String()
		if f.Jitter > 0 {
			s += " jitter " + f.Jitter.String()
		}
	case Bandwidth:
		s += " " + strconv.FormatInt(f.Rate, 10) + "KB/s"
	case SlowClose, Timeout:
		s += " " + durationWord(f.Delay)
	case ResetPeer:
		if f.Delay > 0 {
			s += " " + f.Delay.String()
		}
	case Slicer:
		s += " " + strconv.Itoa(f.Size)
		if f.Variation > 0 {
			s += " variation " + strconv.Itoa(f.Variation)
		}
		if f.Delay > 0 {
			s += " delay " + f.Delay.String()
		}
	case LimitData:
		s += " " + strconv.FormatInt(f.Bytes, 10)
	}
	if f.Stream == Upstream {
		s += " upstream"
	}
	return s
}

// durationWord writes d, zero as "0".
func durationWord(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}
