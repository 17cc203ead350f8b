package repl_test

import (
	"testing"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/statemap"
)

// TestEngineTakesTheRanking: the model's candidate rule is a fence.CandidateRule as it is. The
// engine, given it, promotes the most advanced replica (db3) where its default would promote
// the first eligible one (db2), as long as the model is at the failover's instant when the
// engine decides it.
func TestEngineTakesTheRanking(t *testing.T) {
	for _, c := range []struct {
		name string
		rule func(m *repl.Model) fence.CandidateRule
		want int
	}{
		{"default", func(*repl.Model) fence.CandidateRule { return nil }, 1},
		{"ranking", func(m *repl.Model) fence.CandidateRule { return m.Candidate(nil) }, 2},
	} {
		m := repl.New(repl.Config{Nodes: 3, Master: 0, Rate: repl.PerSecond(100), Deadline: 2 * time.Second})
		e := fence.New(fence.Config{
			Nodes:     []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2", Role: fence.Replica}, {Name: "db3", Role: fence.Replica}},
			Map:       statemap.Default(),
			Candidate: c.rule(m),
		})
		for j := range 3 {
			e.Step(0, fence.ProbeDone{Node: j, Condition: statemap.OK})
		}
		m.Step(0, repl.SetLag{Node: 2, Lag: 5 * time.Second})
		m.Step(30*time.Second, repl.SetStream{Node: 1, Frozen: true})
		// db1's database dies at 60s; its probe at 60s ends in socket_io_error, which fails at
		// once (threshold 0): the model first, then the engine, at one instant.
		at := 60 * time.Second
		m.Step(at, repl.SetLink{Node: 0, Link: repl.Link{Dead: true}})
		e.Step(at, fence.ProbeDone{Node: 0, Condition: statemap.SocketIOError})
		var to = -1
		for _, d := range e.Ready() {
			if f, ok := d.(*fence.Failover); ok {
				to = f.To
			}
		}
		if to != c.want {
			t.Errorf("%s: promoted %d, want %d", c.name, to, c.want)
		}
	}
}
