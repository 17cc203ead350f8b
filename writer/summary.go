package writer

import "github.com/failsim/failsim/repl"

// Summary is the client's view of a run, computed as the replication model computes it
// (repl.Summary): Offered, Acknowledged, Failed, Unavailable (Failed at the rate) and the
// longest Outage, on the writes' scheduled instants. Committed, Lost and Losses are left to the
// caller, who knows the final master (Lost).
func (r Result) Summary() repl.Summary {
	acked := make([]bool, len(r.Writes))
	for i, w := range r.Writes {
		acked[i] = w.Acked
	}
	return Summarize(r.Rate, acked)
}

// Summarize is the client's view of writes 0.. of a workload at rate whose fates are acked,
// in order: the longest run with no acknowledged write runs from the first write that failed to
// the next one acknowledged, or, when none was, to the first write not issued (repl.Outage);
// the first of the longest is kept; Outages has every run, in order.
func Summarize(rate repl.Rate, acked []bool) repl.Summary {
	var s repl.Summary
	s.Offered = int64(len(acked))
	run := int64(-1)
	end := func(k int64) {
		o := repl.Outage{From: rate.At(run), To: rate.At(k), Writes: k - run}
		if o.Length() > s.Outage.Length() {
			s.Outage = o
		}
		s.Outages = append(s.Outages, o)
		run = -1
	}
	for k, ok := range acked {
		switch {
		case ok:
			s.Acknowledged++
			if run >= 0 {
				end(int64(k))
			}
		case run < 0:
			run = int64(k)
		}
	}
	if run >= 0 {
		end(s.Offered)
	}
	s.Failed = s.Offered - s.Acknowledged
	if !rate.Zero() {
		s.Unavailable = rate.Span(s.Failed)
	}
	return s
}
