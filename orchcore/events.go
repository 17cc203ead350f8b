package orchcore

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/orchestrator"
)

// Checked is Orchestrator's last check of node Node turning valid or invalid at At
// (is_last_check_valid).
type Checked struct {
	At    time.Duration
	Node  int
	Valid bool
}

// When implements act.Event.
func (e *Checked) When() time.Duration { return e.At }

// IOThread is node Node's I/O thread stopping (Slave_IO_Running Connecting or No) or running
// again at At, as the replica sees its master (orchestrator.IOChanges): the world, which
// Orchestrator learns of at its next read of the replica.
type IOThread struct {
	At      time.Duration
	Node    int
	Running bool
}

// When implements act.Event.
func (e *IOThread) When() time.Duration { return e.At }

// Analysed is the master Master's analysis code changing at At, with the counts it came from.
type Analysed struct {
	At     time.Duration
	Master int
	orchestrator.Analysis
}

// When implements act.Event.
func (e *Analysed) When() time.Duration { return e.At }

// Recovered is a recovery tick's verdict at At on master Failed's code Code: a recovery ran
// (Verdict Runs; Promotion.Node the replica promoted, -1 for none with Promotion.Why), or not
// and why. A verdict other than Runs is told once per code.
type Recovered struct {
	At      time.Duration
	Failed  int
	Code    orchestrator.Code
	Verdict orchestrator.Verdict
	orchestrator.Promotion
}

// When implements act.Event.
func (e *Recovered) When() time.Duration { return e.At }

// Describe says an event of this package in words, nodes named by names; ok is false for an
// event of another package.
func Describe(names []string, ev any) (string, bool) {
	name := func(i int) string { return nodeName(names, i) }
	switch e := ev.(type) {
	case *Checked:
		if e.Valid {
			return fmt.Sprintf("orchestrator: %s read again", name(e.Node)), true
		}
		return fmt.Sprintf("orchestrator: %s last check invalid", name(e.Node)), true
	case *IOThread:
		if e.Running {
			return fmt.Sprintf("%s I/O thread replicating again", name(e.Node)), true
		}
		return fmt.Sprintf("%s I/O thread not replicating", name(e.Node)), true
	case *Analysed:
		return fmt.Sprintf("orchestrator: %s %s (replicas %d, read %d, replicating %d, lagging %d)",
			name(e.Master), e.Code, e.Replicas, e.ValidReplicas, e.ValidReplicating, e.Lagging), true
	case *Recovered:
		return fmt.Sprintf("orchestrator: %s %s: %s", name(e.Failed), e.Code, RecoveryWords(names, e)), true
	}
	return "", false
}

// RecoveryWords says what a recovery tick did about its code, nodes named by names: "no
// recovery: WHY", "recovery found no replica to promote: WHY", or "recovery promotes NODE
// [after D (its SQL thread)][, repoints ...][, loses ...]".
func RecoveryWords(names []string, e *Recovered) string {
	name := func(i int) string { return nodeName(names, i) }
	list := func(is []int) string {
		var b []string
		for _, i := range is {
			b = append(b, name(i))
		}
		return strings.Join(b, ",")
	}
	switch {
	case e.Verdict != orchestrator.Runs:
		return fmt.Sprintf("no recovery: %s", e.Verdict)
	case e.Node < 0:
		return fmt.Sprintf("recovery found no replica to promote: %s", e.Why)
	}
	s := "recovery promotes " + name(e.Node)
	if e.Delay > 0 {
		s += fmt.Sprintf(" after %v (its SQL thread)", e.Delay)
	}
	if len(e.Repointed) > 0 {
		s += ", repoints " + list(e.Repointed)
	}
	if len(e.Lost) > 0 {
		s += ", loses " + list(e.Lost)
	}
	return s
}

// nodeName is node i's name, or "nodeI" past the names given.
func nodeName(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("node%d", i)
}
