package repl

import (
	"testing"
	"time"
)

// The shipped incidents of issue 11, as the model alone sees them: the engine's decisions are
// given as inputs at the times the test chooses. Every number is worked out by hand below.

// TestMasterDeathLaggingReplica: db1 (0) master, db2 (1) and db3 (2) replicas, 100 writes/s
// (one every 10 ms), deadline 2s, async. db3's stream lags 5s from the start; db2's link
// freezes at 50s; db1's database dies at 60s; the engine fails it over at 62s.
//
//   - Writes 0..5999 (t < 60s) commit and are acknowledged at once: positions 1..6000. The write
//     at 60s comes after the death at the same instant: it fails, as every one up to 62s does.
//   - db2 froze at 50s with the writes made before 50s: 5000. db3 at 62s has every commit made at
//     or before 57s: writes 0..5700, 5701.
//   - The ranking promotes db3 (5701) over db2 (5000), though db2 comes first in cluster order.
//   - Lost: the acknowledged writes above 5701, positions 5702..6000: 299.
//   - db3 applied all it stored (no apply lag): it takes writes at 62s. Writes 6000..6199 (60s to
//     61.99s) failed: 200 writes, an outage of 2s from 60s to 62s.
//   - Up to 120s inclusive: 12001 writes offered, 11801 acknowledged.
func TestMasterDeathLaggingReplica(t *testing.T) {
	cfg := Config{Nodes: 3, Master: 0, Rate: PerSecond(100), Deadline: 2 * time.Second}
	m, ds := play(t, cfg, 120*time.Second,
		ev{0, SetLag{Node: 2, Lag: 5 * time.Second}},
		ev{50 * time.Second, SetStream{Node: 1, Frozen: true}},
		ev{60 * time.Second, SetLink{Node: 0, Link: Link{Dead: true}}},
		ev{62 * time.Second, failover{from: 0}},
	)
	p := decisionsOf[Promoted](ds)
	if len(p) != 1 {
		t.Fatalf("promotions: %+v", ds)
	}
	loss := Loss{At: 62 * time.Second, Cause: LostAtFailover, Master: 0, Keeper: 2, Count: 299, First: 5702, Last: 6000}
	same(t, "promotion", p[0], Promoted{At: 62 * time.Second, Node: 2, From: 0, Stored: 5701, WritableAt: 62 * time.Second, Lost: loss,
		Ranking: []Standing{
			{Node: 2, Stored: 5701, Lag: sec(4.99), Precedence: 3}, // lacks write 5701, made at 57.01s
			{Node: 1, Stored: 5000, Lag: 12 * time.Second, Precedence: 2},
			{Node: 0, Precedence: 1, Excluded: NotEligible},
		}})
	same(t, "writable", decisionsOf[Writable](ds), []Writable{{At: 62 * time.Second, Node: 2}})
	same(t, "summary", m.Summary(), Summary{
		Offered: 12001, Acknowledged: 11801, Failed: 200, Committed: 6000 + 5801,
		Unavailable: 2 * time.Second,
		Outage:      Outage{From: 60 * time.Second, To: 62 * time.Second, Writes: 200},
		Outages:     []Outage{{From: 60 * time.Second, To: 62 * time.Second, Writes: 200}},
		Lost:        299, Losses: []Loss{loss},
	})
}

// TestMasterDeathSemisync: the same incident under semisync (timeout 10s). Nothing
// acknowledged is lost, and the outage is longer.
//
//   - Before 50s db2 (lag 0) stores each commit at once: writes 0..4999 are acknowledged.
//   - From 50s only db3 stores, 5s after each commit: writes 5000..5999 (50s to 59.99s) commit at
//     positions 5001..6000 but would be acknowledged 5s later, past the 2s deadline: they fail.
//     Those still waiting when db1 dies at 60s are never answered. No fallback: db3 stores
//     within the timeout.
//   - At 62s db3 is promoted with 5701 stored: every acknowledged write (1..5000) is in it.
//     Nothing is lost; 701 committed writes it holds were never acknowledged.
//   - db3's only replica, db2, is still frozen: from 62s its commits wait, and at 72s it falls
//     back to async. Writes issued after 70s (70.01s on, 7001..7199) are answered in time at 72s;
//     6200..7000 failed. After 72s every write is acknowledged at once.
//   - Failed: 5000..7000, 2001 writes, one outage from 50s to 70.01s.
func TestMasterDeathSemisync(t *testing.T) {
	cfg := Config{Nodes: 3, Master: 0, Rate: PerSecond(100), Deadline: 2 * time.Second, Mode: Semisync}
	m, ds := play(t, cfg, 120*time.Second,
		ev{0, SetLag{Node: 2, Lag: 5 * time.Second}},
		ev{50 * time.Second, SetStream{Node: 1, Frozen: true}},
		ev{60 * time.Second, SetLink{Node: 0, Link: Link{Dead: true}}},
		ev{62 * time.Second, failover{from: 0}},
	)
	p := decisionsOf[Promoted](ds)
	if len(p) != 1 || p[0].Node != 2 || p[0].Stored != 5701 {
		t.Fatalf("promotions: %+v", p)
	}
	loss := Loss{At: 62 * time.Second, Cause: LostAtFailover, Master: 0, Keeper: 2}
	same(t, "loss", p[0].Lost, loss)
	same(t, "fell back", decisionsOf[FellBack](ds), []FellBack{{At: 72 * time.Second, Master: 2, Since: 62 * time.Second, Waiting: 1000}})
	same(t, "summary", m.Summary(), Summary{
		Offered: 12001, Acknowledged: 10000, Failed: 2001, Committed: 6000 + 5801,
		Unavailable: sec(20.01),
		Outage:      Outage{From: 50 * time.Second, To: sec(70.01), Writes: 2001},
		Outages:     []Outage{{From: 50 * time.Second, To: sec(70.01), Writes: 2001}},
		Losses:      []Loss{loss}, Fallbacks: 1,
	})
}

// TestSemisyncFallsBackAndReturns: db1 master, db2 its only replica, 10 writes/s, deadline 2s,
// semisync with the default 10s timeout. db2's replicator stops at 30s and starts at 60s.
//
//   - 0..29.9s: acknowledged at once (writes 0..299).
//   - From 30s commits wait; at 40s the oldest has waited 10s: the master falls back. The 100
//     waiting (30s..39.9s) are answered at 40s: those issued after 38s (38.1s on, writes 381..399,
//     19 of them) in time, the 81 before (300..380) too late.
//   - 40s..59.9s: async, acknowledged at once.
//   - At 60s db2 catches up at once to everything made before 60s (600 >= the 400 made when the
//     master fell back): semisync returns; from then db2 stores each commit at once.
//   - Up to 90s: 901 offered, 81 failed in one outage of 8.1s (30s to 38.1s).
func TestSemisyncFallsBackAndReturns(t *testing.T) {
	cfg := Config{Nodes: 2, Master: 0, Rate: PerSecond(10), Deadline: 2 * time.Second, Mode: Semisync}
	m := New(cfg)
	m.Step(30*time.Second, SetReplicator{Node: 1, Running: false})
	if at, ok := m.Next(); !ok || at != 40*time.Second {
		t.Errorf("Next after the stop = %v, %v; want 40s", at, ok)
	}
	m.Close(40 * time.Second)
	same(t, "at 40s", m.Ready(), []Decision{&FellBack{At: 40 * time.Second, Master: 0, Since: 30 * time.Second, Waiting: 100}})
	if _, ok := m.Next(); ok {
		t.Errorf("a decision due with the replicator stopped")
	}
	m.Step(60*time.Second, SetReplicator{Node: 1, Running: true})
	if at, ok := m.Next(); !ok || at != 60*time.Second {
		t.Errorf("Next after the start = %v, %v; want 60s: db2 caught up at once", at, ok)
	}
	m.Close(60 * time.Second)
	same(t, "at 60s", m.Ready(), []Decision{&Returned{At: 60 * time.Second, Master: 0, Replica: 1}})
	m.Close(90 * time.Second)
	same(t, "summary", m.Summary(), Summary{
		Offered: 901, Acknowledged: 820, Failed: 81, Committed: 901,
		Unavailable: sec(8.1),
		Outage:      Outage{From: 30 * time.Second, To: sec(38.1), Writes: 81},
		Outages:     []Outage{{From: 30 * time.Second, To: sec(38.1), Writes: 81}},
		Fallbacks:   1,
	})
}

// TestEBSStallWorkload: the EBS stall of testdata/incidents/ebs-stall.timeline (start
// 21:00:00) with a workload of 200 writes/s, deadline 2s. The manager never fails over (the
// stall is query_results_timeout: none), but every write to the stalled master fails:
//
//	21:11:00-21:21:00  600 s  120,000 writes   (the longest)
//	21:21:05-21:25:00  235 s   47,000
//	21:25:04-21:30:00  296 s   59,200
//	21:30:06-21:35:45  339 s   67,800
//	total             1470 s  294,000
//
// Up to 22:00:00 inclusive 720,001 writes are offered.
func TestEBSStallWorkload(t *testing.T) {
	stall, heal := SetLink{Node: 0, Link: Link{Dead: true}}, SetLink{Node: 0}
	hm := func(m, s int) time.Duration { return time.Duration(m)*time.Minute + time.Duration(s)*time.Second }
	cfg := Config{Nodes: 5, Master: 0, Rate: PerSecond(200), Deadline: 2 * time.Second}
	m, ds := play(t, cfg, 60*time.Minute,
		ev{hm(11, 0), stall}, ev{hm(21, 0), heal},
		ev{hm(21, 5), stall}, ev{hm(25, 0), heal},
		ev{hm(25, 4), stall}, ev{hm(30, 0), heal},
		ev{hm(30, 6), stall}, ev{hm(35, 45), heal},
	)
	if len(ds) != 0 {
		t.Errorf("decisions: %+v", ds)
	}
	same(t, "summary", m.Summary(), Summary{
		Offered: 720_001, Acknowledged: 426_001, Failed: 294_000, Committed: 426_001,
		Unavailable: 1470 * time.Second,
		Outage:      Outage{From: hm(11, 0), To: hm(21, 0), Writes: 120_000},
		Outages: []Outage{{From: hm(11, 0), To: hm(21, 0), Writes: 120_000}, {From: hm(21, 5), To: hm(25, 0), Writes: 47_000},
			{From: hm(25, 4), To: hm(30, 0), Writes: 59_200}, {From: hm(30, 6), To: hm(35, 45), Writes: 67_800}},
	})
}
