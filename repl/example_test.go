package repl_test

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/repl"
)

// A master dies under a workload of 100 writes/s; its first replica's link froze 20s before,
// its second's stream is 5s late. The engine fails it over 2s later with the model's ranking.
func Example() {
	m := repl.New(repl.Config{Nodes: 3, Master: 0, Rate: repl.PerSecond(100), Deadline: 2 * time.Second})
	m.Step(0, repl.SetLag{Node: 2, Lag: 5 * time.Second})
	m.Step(40*time.Second, repl.SetStream{Node: 1, Frozen: true})
	m.Step(60*time.Second, repl.SetLink{Node: 0, Link: repl.Link{Dead: true}})

	m.Begin(62 * time.Second) // the failover's instant: the ranking reads the positions at it
	rule := m.Candidate(nil)  // what fence.Config.Candidate would be given
	to := rule(nil, func(j int) bool { return j != 0 })
	m.Step(62*time.Second, repl.Promote{Node: to, From: 0, Repoint: []int{1}})
	m.Close(120 * time.Second)

	for _, d := range m.Ready() {
		switch d := d.(type) {
		case *repl.Promoted:
			fmt.Printf("promoted db%d with %d stored; lost %d acknowledged writes (%d..%d)\n",
				d.Node+1, d.Stored, d.Lost.Count, d.Lost.First, d.Lost.Last)
			for _, s := range d.Ranking {
				fmt.Printf("  db%d stored %d lag %v: %v\n", s.Node+1, s.Stored, s.Lag, s.Excluded)
			}
		case *repl.Writable:
			fmt.Printf("db%d writable after %v\n", d.Node+1, d.Waited)
		}
	}
	s := m.Summary()
	fmt.Printf("offered %d, acknowledged %d, failed %d, lost %d\n", s.Offered, s.Acknowledged, s.Failed, s.Lost)
	fmt.Printf("longest outage %v (%v to %v), unavailable %v\n", s.Outage.Length(), s.Outage.From, s.Outage.To, s.Unavailable)
	// Output:
	// promoted db3 with 5701 stored; lost 299 acknowledged writes (5702..6000)
	//   db3 stored 5701 lag 4.99s: candidate
	//   db2 stored 4000 lag 22s: candidate
	//   db1 stored 0 lag 0s: not-eligible
	// db3 writable after 0s
	// offered 12001, acknowledged 11801, failed 200, lost 299
	// longest outage 2s (1m0s to 1m2s), unavailable 2s
}
