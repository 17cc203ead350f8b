package orchcore

import (
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/orchestrator"
)

// TestDetectionAtEveryPhase holds orchestrator.DetectionOf, the closed form, to the machine's
// replays: for each fault the model covers, put on the master at every quarter second of a
// whole heartbeat cycle (30 s, five read cycles), the first problem code and the first
// DeadMaster come exactly when the closed form says.
func TestDetectionAtEveryPhase(t *testing.T) {
	for _, c := range []orchestrator.Config{orchestrator.Defaults(), func() orchestrator.Config {
		c := orchestrator.Defaults()
		c.InstancePoll, c.ReasonableInstanceCheck = time.Second, 5*time.Second
		return c
	}()} {
		for _, k := range []fault.Kind{fault.Refuse, fault.Reset, fault.Close, fault.Error, fault.Freeze, fault.Blackhole, fault.Stall, fault.Unreachable, fault.HostDown} {
			for at := 600 * s; at < 630*s; at += 250 * time.Millisecond {
				want, err := orchestrator.DetectionOf(c, orchestrator.DefaultReplica(), fault.Fault{Kind: k}, at)
				if err != nil {
					t.Fatal(err)
				}
				m := New(Config{Orchestrator: c, Replica: orchestrator.DefaultReplica(), Nodes: 3, Master: 0, End: 900 * s, MariaDBGTID: true})
				m.Fault(at, 0, fault.Fault{Kind: k})
				first, dead, deadOK := time.Duration(-1), time.Duration(0), false
				for {
					next, ok := m.Next()
					if !ok || next > 900*s {
						break
					}
					m.Step(next)
					for _, ev := range m.Ready() {
						if a, ok := ev.(*Analysed); ok {
							if first < 0 && a.Code != orchestrator.NoProblem {
								first = a.At
							}
							if !deadOK && a.Code == orchestrator.DeadMaster {
								dead, deadOK = a.At, true
							}
						}
					}
					m.Advance()
				}
				if first != want.Unreachable || deadOK != want.DeadOK || (deadOK && dead != want.Dead) {
					t.Errorf("poll %v, %s at %v: replay first problem %v, DeadMaster %v %t; closed form %+v", c.InstancePoll, k, at, first, dead, deadOK, want)
				}
			}
		}
	}
}
