package sweep

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// BenignStats is what a point's benign traces say: how many fenced their master, every one
// of them falsely.
type BenignStats struct {
	Traces         int          `json:"traces"`
	FalseFailovers int          `json:"false_failovers"`  // traces whose master was fenced: a failover, or failed with no replica eligible
	Rate           float64      `json:"rate"`             // FalseFailovers / Traces
	Client         *ClientStats `json:"client,omitempty"` // with a workload; nil without
}

// FatalStats is what a point's fatal traces say: how long after its fault the dead master was
// fenced.
type FatalStats struct {
	Traces int `json:"traces"`
	Fenced int `json:"fenced"` // fenced after the fault started
	Early  int `json:"early"`  // fenced by benign noise before the fault started: not measured
	Missed int `json:"missed"` // never fenced by the trace's end
	// The time to fence, in seconds, over the traces fenced or missed (a miss counts as
	// forever); nil when that rank is a miss, or no trace was measured. Nearest rank.
	P50 *float64 `json:"p50_s"`
	P95 *float64 `json:"p95_s"`
	Max *float64 `json:"max_s"`
	// Client is the client's view over every fatal trace (those fenced early or missed
	// included), with a workload; nil without.
	Client *ClientStats `json:"client,omitempty"`
}

// ClientStats is what the client saw over a family's traces at a point, with a workload
// (Config.Workload). A trace's unavailable time is its failed writes at the workload's rate
// (repl.Summary.Unavailable): every outage of the replay added up, so a master that flaps
// costs each of its outages, where the longest outage would show one. A fatal trace ends a
// tick past the slowest point's promise after its fault: a point that never fences its dead
// master is unavailable from the fault to that end.
type ClientStats struct {
	UnavailableP50 float64 `json:"unavailable_p50_s"` // seconds, nearest rank over the traces
	UnavailableP95 float64 `json:"unavailable_p95_s"`
	UnavailableMax float64 `json:"unavailable_max_s"`
	Lost           int64   `json:"lost"`     // acknowledged writes lost, over every trace
	LostP95        int64   `json:"lost_p95"` // acknowledged writes lost by one replay, nearest rank
}

// clientStats sums up the client's view of a point's replays of one family; nil for none
// (no workload).
func clientStats(outs []outcome) *ClientStats {
	if len(outs) == 0 {
		return nil
	}
	un := make([]time.Duration, len(outs))
	lost := make([]int64, len(outs))
	s := &ClientStats{}
	for i, o := range outs {
		un[i], lost[i] = o.unavailable, o.lost
		s.Lost += o.lost
	}
	slices.Sort(un)
	slices.Sort(lost)
	s.UnavailableP50, s.UnavailableP95 = *percentile(un, 50), *percentile(un, 95)
	s.UnavailableMax = *percentile(un, 100)
	s.LostP95 = lost[max((95*len(lost)+99)/100, 1)-1]
	return s
}

// PartitionStats is what a point's partition traces say: how long two or more nodes were
// writable at once (a split-brain window, package cluster's), per trace. A window still open
// at a trace's end counts up to the end.
type PartitionStats struct {
	Traces          int     `json:"traces"`
	SplitBrain      int     `json:"split_brain"`         // traces with a window longer than 0
	Share           float64 `json:"split_brain_share"`   // SplitBrain / Traces
	SplitBrainP50   float64 `json:"split_brain_p50_s"`   // seconds per trace, nearest rank over the traces
	SplitBrainP95   float64 `json:"split_brain_p95_s"`   // likewise
	SplitBrainMax   float64 `json:"split_brain_max_s"`   // the longest of one trace
	SplitBrainTotal float64 `json:"split_brain_total_s"` // over all the traces
	// The time a primary view (a majority's) had no master in service in its copy of the
	// cluster's state, per trace: seconds, nearest rank; and the traces ending so.
	NoWriterP50   float64 `json:"no_writer_p50_s"`
	NoWriterP95   float64 `json:"no_writer_p95_s"`
	NoWriterMax   float64 `json:"no_writer_max_s"`
	NoWriterAtEnd int     `json:"no_writer_at_end"`
	// Client is the client's view over the partition traces, with a workload; nil without.
	// The application writes to its own side's writable master, so a split brain's two
	// masters both acknowledge, and the merge loses what the overwritten side acknowledged.
	Client *ClientStats `json:"client,omitempty"`
}

func partitionStats(outs []outcome) *PartitionStats {
	s := &PartitionStats{Traces: len(outs)}
	sorted := make([]time.Duration, len(outs))
	none := make([]time.Duration, len(outs))
	for i, o := range outs {
		sorted[i], none[i] = o.splitBrain, o.noWriter
		if o.noWriterAtEnd {
			s.NoWriterAtEnd++
		}
	}
	slices.Sort(sorted)
	slices.Sort(none)
	s.NoWriterP50, s.NoWriterP95, s.NoWriterMax = *percentile(none, 50), *percentile(none, 95), *percentile(none, 100)
	var total time.Duration
	for _, d := range sorted {
		total += d
		if d > 0 {
			s.SplitBrain++
		}
	}
	s.Share = float64(s.SplitBrain) / float64(s.Traces)
	s.SplitBrainP50, s.SplitBrainP95 = *percentile(sorted, 50), *percentile(sorted, 95)
	s.SplitBrainMax, s.SplitBrainTotal = *percentile(sorted, 100), total.Seconds()
	return s
}

func benignStats(fenced []bool) *BenignStats {
	s := &BenignStats{Traces: len(fenced)}
	for _, f := range fenced {
		if f {
			s.FalseFailovers++
		}
	}
	s.Rate = float64(s.FalseFailovers) / float64(s.Traces)
	return s
}

// fatalStats summarises the times to fence of a point's fatal traces, with the markers early
// and missed.
func fatalStats(detect []time.Duration) *FatalStats {
	s := &FatalStats{Traces: len(detect)}
	var ds []time.Duration
	for _, d := range detect {
		switch d {
		case early:
			s.Early++
			continue
		case missed:
			s.Missed++
			d = math.MaxInt64
		default:
			s.Fenced++
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	s.P50, s.P95 = percentile(ds, 50), percentile(ds, 95)
	s.Max = percentile(ds, 100)
	return s
}

// percentile is the nearest-rank p-th percentile of sorted ds in seconds: nil for none, or a
// miss.
func percentile(ds []time.Duration, p int) *float64 {
	if len(ds) == 0 {
		return nil
	}
	rank := (p*len(ds) + 99) / 100 // ceil(p/100 * n)
	d := ds[max(rank, 1)-1]
	if d == math.MaxInt64 {
		return nil
	}
	sec := d.Seconds()
	return &sec
}

// pareto marks the points on the frontier of the trade: those with a false-failover rate and
// a finite p95 time to fence that no other such point beats on one and matches or beats on
// the other. Points without both are on no frontier.
func pareto(pts []*Point) {
	var cand []*Point
	for _, p := range pts {
		p.Pareto = false
		if p.Benign != nil && p.Fatal != nil && p.Fatal.P95 != nil {
			cand = append(cand, p)
		}
	}
	slices.SortStableFunc(cand, func(a, b *Point) int {
		return cmp.Or(cmp.Compare(a.Benign.Rate, b.Benign.Rate), cmp.Compare(*a.Fatal.P95, *b.Fatal.P95))
	})
	best := math.Inf(1) // the lowest p95 among points of a strictly lower rate
	for i := 0; i < len(cand); {
		j := i
		for j < len(cand) && cand[j].Benign.Rate == cand[i].Benign.Rate {
			j++
		}
		low := *cand[i].Fatal.P95 // the group's lowest: it is sorted by p95 within a rate
		if low < best {
			for k := i; k < j && *cand[k].Fatal.P95 == low; k++ {
				cand[k].Pareto = true
			}
			best = low
		}
		i = j
	}
}
