package repl

import "time"

// client is the application's view of its writes, in the order it issued them: how many it
// offered, how many were acknowledged in time, the longest run with none acknowledged, and
// every such run.
type client struct {
	offered, acked int64
	runStart       int64 // the first write of the failures since the last acknowledged one; -1 for none
	longest        Outage
	outages        []Outage // every closed run, in order
}

// Outage is a run of time with no acknowledged write: from the first write that failed to the
// next one acknowledged (or, for one still open, to the first write not yet issued), and the
// writes that failed in it. The zero value is no outage.
type Outage struct {
	From, To time.Duration
	Writes   int64
}

// Length is To - From.
func (o Outage) Length() time.Duration { return o.To - o.From }

// record takes the fate of the n writes k0.. (all acknowledged, or all failed), which follow
// every write recorded before.
func (c *client) record(r Rate, k0, n int64, acked bool) {
	if n == 0 {
		return
	}
	if c.offered != k0 {
		panic("repl: write fates recorded out of order")
	}
	c.offered += n
	if !acked {
		if c.runStart < 0 {
			c.runStart = k0
		}
		return
	}
	c.acked += n
	if c.runStart >= 0 {
		c.close(r, k0)
	}
}

// close ends the run of failures at write k, the next acknowledged (or not yet issued) one.
func (c *client) close(r Rate, k int64) {
	o := Outage{From: r.At(c.runStart), To: r.At(k), Writes: k - c.runStart}
	if o.Length() > c.longest.Length() {
		c.longest = o
	}
	c.outages = append(c.outages, o)
	c.runStart = -1
}
