package repl

import (
	"slices"
	"time"
)

// Summary is the client's view of the workload so far, and what replication lost.
type Summary struct {
	Offered      int64 // writes issued
	Acknowledged int64 // writes acknowledged within their deadline
	Failed       int64 // Offered - Acknowledged: not committed, or committed and not acknowledged in time
	Committed    int64 // writes a master committed, acknowledged or not (lost ones included)
	// Unavailable is the time the failed writes stand for: Failed at the workload's rate.
	Unavailable time.Duration
	// Outage is the longest run with no acknowledged write (the first of the longest); zero for none.
	Outage Outage
	// Outages is every run with no acknowledged write, in order: Outage is the first of the
	// longest of them, and their Writes add up to Failed. Nil for none.
	Outages []Outage
	// Lost is the acknowledged writes lost, over every Loss.
	Lost int64
	// Losses has one entry for each failover and each overwritten master at a merge, in order,
	// those that lost nothing included.
	Losses []Loss
	// Fallbacks is how many times semisync fell back to async.
	Fallbacks int
}

// Summary returns the client's view of the writes issued before the model's time (after
// Close(end): those up to end). A write still waiting for its acknowledgement is followed to
// its outcome as if nothing changed after the model's time; the model itself is not changed.
func (m *Model) Summary() Summary {
	c := m
	if len(m.wait) > 0 {
		c = m.clone()
		c.limit = min(c.limit, c.cfg.Rate.First(c.now))
		c.settle(c.now + c.cfg.Timeout + 1) // by then every commit was stored, or the master fell back
		if len(c.wait) > 0 {
			panic("repl: commits still waiting after the timeout")
		}
	}
	s := Summary{
		Offered:      c.client.offered,
		Acknowledged: c.client.acked,
		Failed:       c.client.offered - c.client.acked,
		Committed:    m.committed,
		Outage:       c.client.longest,
		Outages:      slices.Clone(c.client.outages),
		Losses:       slices.Clone(m.losses),
		Fallbacks:    c.fallbacks,
	}
	if !m.cfg.Rate.Zero() {
		s.Unavailable = m.cfg.Rate.Span(s.Failed)
		if cl := c.client; cl.runStart >= 0 {
			cl.outages = nil // the close appends the open run alone; the closed ones are in s already
			cl.close(m.cfg.Rate, cl.offered)
			s.Outage = cl.longest
			s.Outages = append(s.Outages, cl.outages...)
		}
	}
	for _, l := range m.losses {
		s.Lost += l.Count
	}
	return s
}

// clone returns a deep copy of m that evolves apart, its decisions left behind.
func (m *Model) clone() *Model {
	c := *m
	c.out = nil
	c.nodes = slices.Clone(m.nodes)
	for j := range c.nodes {
		c.nodes[j].pieces = slices.Clone(m.nodes[j].pieces)
	}
	c.hists = slices.Clone(m.hists)
	for h := range c.hists {
		c.hists[h].segs = slices.Clone(m.hists[h].segs)
		c.hists[h].acked = slices.Clone(m.hists[h].acked)
	}
	c.wait = slices.Clone(m.wait)
	c.losses = slices.Clone(m.losses)
	c.ranking = slices.Clone(m.ranking)
	c.client.outages = slices.Clone(m.client.outages)
	return &c
}
