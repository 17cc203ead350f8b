package faultmodel

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// predictToxic is Predict for toxiproxy's toxics, each on its one stream (fault.Fault.Stream),
// with toxiproxy's semantics (toxics/*.go of Shopify/toxiproxy v2.5.0), met by the probe's
// trips (trips) under a budget of timeout:
//
//   - latency L jitter J: each trip of the stream arrives L+J late, the worst of toxiproxy's
//     draws (uniform in [L-J, L+J) ms per chunk). The simulator's fault model is a function of
//     the fault alone, foreseen once per fault change and never per probe
//     (drive.Config.Foresee), so it takes no draw: the worst case keeps it pure, every replay
//     repeats, and a probe that a draw could fail is predicted failed. Downstream that is three
//     trips (greeting, verdict, result), upstream two (login, query).
//   - bandwidth R: each trip of the stream is held for its bytes at R KB/s (toxiproxy sleeps
//     len×1ms/R per chunk).
//   - slicer S V D: each trip of the stream is cut into pieces, the most any draw makes
//     (fault.Fault.MostPieces), with a pause of D after each: the trip's last byte comes
//     (pieces-1)×D after its first, and a trip after another of the same stream also waits out
//     the pause that followed that one's last piece (the servers answer in well under it).
//   - A late trip runs the probe out of time in what it waits for when the trips so far reach
//     the budget (a tie too: the checker's deadline is the budget), as delay does; else the
//     probe ends ok when its last trip arrives.
//   - slow-close D: only the FIN is late, and the probe closes first: ok at once.
//   - timeout T: every byte of the stream is dropped, the first trip of it never arrives (the
//     greeting downstream, the login upstream), and the connection is closed T after that
//     trip (toxiproxy restarts its timer at each chunk); T = 0 never closes. Closed within the
//     budget, the probe sees an EOF after T in what it waits for (downstream socket_io_error,
//     upstream mysql_premature_eof: the proxy closes the server's side, the server its own,
//     the proxy the client's); else it times out there after the budget.
//   - reset-peer T: the first trip of the stream is taken and not passed on, and the
//     connection reset (RST, linger 0 both sides) T after it: socket_io_error after T, at once
//     for T = 0; a T at or over the budget times out first.
//   - limit-data N: the connection is closed once N bytes went through the stream. Downstream
//     the probe gets each trip whole while the count stays within N, and an EOF in the first
//     trip over it: under the greeting's bytes it dies waiting for the greeting
//     (socket_io_error), up to the verdict's waiting for the verdict (mysql_premature_eof), up
//     to the result's waiting for the result (socket_io_error), and from there on ends ok.
//     Upstream the trip that reaches N is the last the server gets, and its answer never
//     comes: up to the login's bytes the probe dies waiting for the verdict, up to the
//     query's for the result, and past them ends ok. Every limit-data probe ends at once.
func predictToxic(f fault.Fault, timeout time.Duration) act.Outcome {
	late := func(w wait) act.Outcome { return act.Outcome{Condition: w.timedOut(), Took: timeout} }
	switch f.Kind {
	case fault.Latency, fault.Bandwidth, fault.Slicer:
		var at, pause time.Duration // pause: the slicer's, after the stream's last trip
		for _, t := range trips {
			if t.stream != f.Stream {
				continue
			}
			at = sum(at, hold(f, t.bytes)+pause)
			if f.Kind == fault.Slicer {
				pause = f.Delay
			}
			if at >= timeout {
				return late(t.wait)
			}
		}
		return act.Outcome{Condition: statemap.OK, Took: at}
	case fault.SlowClose:
		return act.Outcome{Condition: statemap.OK}
	case fault.Timeout, fault.ResetPeer:
		w := first(f.Stream).wait
		switch {
		case f.Kind == fault.Timeout && f.Delay == 0, f.Delay >= timeout:
			return late(w)
		case f.Kind == fault.Timeout:
			return act.Outcome{Condition: w.closed(), Took: f.Delay}
		}
		return act.Outcome{Condition: statemap.SocketIOError, Took: f.Delay}
	case fault.LimitData:
		if t, ok := limitDataCut(f); ok {
			return act.Outcome{Condition: t.wait.closed()}
		}
		return act.Outcome{Condition: statemap.OK}
	}
	panic("faultmodel: " + f.Kind.String() + " is not a toxiproxy toxic")
}

// hold is how much later than without f the last of n bytes of a trip on f's stream arrives:
// latency's worst draw, bandwidth's time for the bytes, the slicer's pauses between its pieces.
func hold(f fault.Fault, n int) time.Duration {
	switch f.Kind {
	case fault.Latency:
		return f.Delay + f.Jitter
	case fault.Bandwidth:
		return time.Duration(n) * time.Millisecond / time.Duration(f.Rate) // toxiproxy's own sum
	case fault.Slicer:
		return time.Duration(f.MostPieces(n)-1) * f.Delay
	}
	return 0
}

// limitDataCut returns the trip limit-data f kills the probe in: downstream the first whose
// bytes, with the stream's before it, pass f.Bytes; upstream the first that reaches it. ok is
// false when the probe gets through.
func limitDataCut(f fault.Fault) (trip, bool) {
	var through int64
	for _, t := range trips {
		if t.stream != f.Stream {
			continue
		}
		through += int64(t.bytes)
		if through > f.Bytes || (f.Stream == fault.Upstream && through == f.Bytes) {
			return t, true
		}
	}
	return trip{}, false
}

// first returns the probe's first trip on stream s.
func first(s fault.Stream) trip {
	for _, t := range trips {
		if t.stream == s {
			return t
		}
	}
	panic("faultmodel: no trip on " + s.String())
}

// toxicDead is DatabaseDead for toxiproxy's toxics: timeout and reset-peer let no connection
// talk (every byte of one stream dropped; every connection reset at its first bytes), like
// freeze and reset; limit-data is death when no probe gets through its bytes (no connection
// can log in and answer a query), and otherwise a live database whose connections do not last.
// latency, bandwidth, slicer and slow-close are a live database on a slow or choppy path.
func toxicDead(f fault.Fault) bool {
	switch f.Kind {
	case fault.Timeout, fault.ResetPeer:
		return true
	case fault.LimitData:
		_, cut := limitDataCut(f)
		return cut
	}
	return false
}

// sum is a+b, at most the largest Duration.
func sum(a, b time.Duration) time.Duration {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}
