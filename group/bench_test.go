package group

import (
	"testing"
	"time"
)

// BenchmarkPartitionCycle is one partition of 6 databases and 2 witnesses, its three silent
// ticks, a steady tick, the heal and its tick: what a flapping partition costs per cycle.
func BenchmarkPartitionCycle(b *testing.B) {
	members := make([]Member, 8)
	members[6].Witness, members[7].Witness = true, true
	g := New(Config{Members: members})
	split := Net{{}, {}, {}, {Segment: 1}, {Segment: 1}, {Segment: 1}, {}, {Segment: 1}}
	at := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		at += 5 * time.Second
		g.Step(at, SetNet{Net: split})
		for range 4 {
			at += 10 * time.Second
			g.Step(at, Tick{})
		}
		at += 5 * time.Second
		g.Step(at, SetNet{})
		at += 5 * time.Second
		g.Step(at, Tick{})
		g.Ready()
	}
}
