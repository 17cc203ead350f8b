package faultmodel

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// toxicRows are the fault table's rows of toxiproxy's toxics under a budget of timeout, each
// duration a whole number of milliseconds (toxiproxy's unit), at least one: latency with a
// jitter, its worst three trips under the budget (1/5 and 1/10 of it), and its greeting and
// verdict not (1/2 of it), and upstream its two trips not; bandwidth at its lowest rate;
// slow-close for the budget; timeout closing within the budget (1/5 of it), both ways, and
// never; reset-peer at once, and upstream within the budget (1/5 of it); a slicer of 64-byte pieces; limit-data cutting
// the greeting, the login's verdict, and none.
func toxicRows(timeout time.Duration) []Row {
	ms := func(d time.Duration) time.Duration { return max(d.Truncate(time.Millisecond), time.Millisecond) }
	up := fault.Upstream
	return []Row{
		{Fault: fault.Fault{Kind: fault.Latency, Delay: ms(timeout / 5), Jitter: ms(timeout / 10)}},
		{Fault: fault.Fault{Kind: fault.Latency, Delay: ms(timeout / 2)}},
		{Fault: fault.Fault{Kind: fault.Latency, Delay: ms(timeout / 2), Stream: up}},
		{Fault: fault.Fault{Kind: fault.Bandwidth, Rate: 1}},
		{Fault: fault.Fault{Kind: fault.SlowClose, Delay: ms(timeout)}},
		{Fault: fault.Fault{Kind: fault.Timeout, Delay: ms(timeout / 5)}},
		{Fault: fault.Fault{Kind: fault.Timeout, Delay: ms(timeout / 5), Stream: up}},
		{Fault: fault.Fault{Kind: fault.Timeout}},
		{Fault: fault.Fault{Kind: fault.ResetPeer}},
		{Fault: fault.Fault{Kind: fault.ResetPeer, Delay: ms(timeout / 5), Stream: up}},
		{Fault: fault.Fault{Kind: fault.Slicer, Size: 64, Delay: 10 * time.Microsecond}},
		{Fault: fault.Fault{Kind: fault.LimitData, Bytes: 64}},
		{Fault: fault.Fault{Kind: fault.LimitData, Bytes: 110}},
		{Fault: fault.Fault{Kind: fault.LimitData, Bytes: 4096}},
	}
}

// toxicWhat says toxic f in words, with what its probe outcome o says of the budget timeout.
func toxicWhat(f fault.Fault, o act.Outcome, timeout time.Duration) string {
	side := "server's"
	if f.Stream == fault.Upstream {
		side = "client's"
	}
	budget := func() string {
		if o.Condition == statemap.OK {
			return fmt.Sprintf("%s, under the %s budget", o.Took, timeout)
		}
		return fmt.Sprintf("not under the %s budget", timeout)
	}
	switch f.Kind {
	case fault.Latency:
		n := 0
		for _, t := range trips {
			if t.stream == f.Stream {
				n++
			}
		}
		late := f.Delay.String()
		if f.Jitter > 0 {
			late = fmt.Sprintf("%s ±%s", f.Delay, f.Jitter)
		}
		if o.Condition == statemap.OK && f.Jitter > 0 {
			return fmt.Sprintf("the %s bytes %s late: %d trips, %s at worst, under the %s budget", side, late, n, o.Took, timeout)
		}
		return fmt.Sprintf("the %s bytes %s late: %d trips, %s", side, late, n, budget())
	case fault.Bandwidth:
		n := 0
		for _, t := range trips {
			if t.stream == f.Stream {
				n += t.bytes
			}
		}
		return fmt.Sprintf("the %s %d bytes at %dKB/s: %s", side, n, f.Rate, budget())
	case fault.SlowClose:
		return fmt.Sprintf("the %s FIN held %s: the probe has closed first", side, f.Delay)
	case fault.Timeout:
		switch {
		case f.Delay == 0:
			return fmt.Sprintf("the %s bytes dropped, never closed", side)
		case o.Condition.IsTimeout():
			return fmt.Sprintf("the %s bytes dropped, closed after %s: not within the %s budget", side, f.Delay, timeout)
		}
		return fmt.Sprintf("the %s bytes dropped, closed after %s", side, f.Delay)
	case fault.ResetPeer:
		switch {
		case f.Delay == 0:
			return fmt.Sprintf("RST at the %s first bytes", side)
		case o.Condition.IsTimeout():
			return fmt.Sprintf("RST %s after the %s first bytes: not within the %s budget", f.Delay, side, timeout)
		}
		return fmt.Sprintf("RST %s after the %s first bytes", f.Delay, side)
	case fault.Slicer:
		pieces := fmt.Sprintf("%d", f.Size)
		if f.Variation > 0 {
			pieces = fmt.Sprintf("%d±%d", f.Size, f.Variation)
		}
		return fmt.Sprintf("the %s bytes in pieces of %s bytes, %s apart: %s", side, pieces, f.Delay, budget())
	case fault.LimitData:
		if t, cut := limitDataCut(f); cut {
			return fmt.Sprintf("closed after the %s first %d bytes: the %s is cut", side, f.Bytes, t.name())
		}
		need := 0
		for _, t := range trips {
			if t.stream == f.Stream {
				need += t.bytes
			}
		}
		return fmt.Sprintf("closed after the %s first %d bytes: the probe needs %d", side, f.Bytes, need)
	}
	return f.Kind.String()
}
