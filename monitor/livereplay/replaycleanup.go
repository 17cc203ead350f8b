package livereplay

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/failsim/failsim/proxy"
)

// leftBehind is what a live run with a workload set on the servers and their links and has
// not undone yet: what an interrupted run must heal, or say it left. It is told from the run's
// own goroutine only (the replication actions), and read once the run has returned.
type leftBehind struct {
	links   map[int]proxy.Mode    // per replica: the mode set on its links, while not the pass
	stopped map[int]bool          // replicators stopped (STOP SLAVE)
	delayed map[int]time.Duration // MASTER_DELAY set, while not 0
}

func newLeftBehind() *leftBehind {
	return &leftBehind{links: map[int]proxy.Mode{}, stopped: map[int]bool{}, delayed: map[int]time.Duration{}}
}

// setLink notes that mode md was set on replica node's links.
func (l *leftBehind) setLink(node int, md proxy.Mode) {
	if md == (proxy.Mode{}) {
		delete(l.links, node)
		return
	}
	l.links[node] = md
}

// acted notes a replication action that was made real.
func (l *leftBehind) acted(a ReplicationAction) {
	switch a.Kind {
	case ReplicatorStop:
		l.stopped[a.Node] = true
	case ReplicatorStart:
		delete(l.stopped, a.Node)
	case ApplyLag:
		if a.Lag == 0 {
			delete(l.delayed, a.Node)
		} else {
			l.delayed[a.Node] = a.Lag
		}
	}
}

// heal sets every link it noted back to pass through links (5 s at most, whatever ctx the
// run had: it was cancelled), and returns one line for each: what it healed, what it could not,
// and what it leaves on the servers (a stopped replicator, a MASTER_DELAY), for the user to
// undo.
func (l *leftBehind) heal(links ReplLinks, names []string) []string {
	var out []string
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, n := range sortedKeys(l.links) {
		md := l.links[n]
		if links == nil {
			continue
		}
		if err := links.Set(ctx, n, proxy.Mode{}); err != nil {
			out = append(out, fmt.Sprintf("interrupted: %s's replication links left in %s: %v", names[n], md, err))
			continue
		}
		delete(l.links, n)
		out = append(out, fmt.Sprintf("interrupted: %s's replication links healed (they were in %s)", names[n], md))
	}
	for _, n := range sortedKeys(l.stopped) {
		out = append(out, fmt.Sprintf("interrupted: %s's replicator left stopped: run START SLAVE on it", names[n]))
	}
	for _, n := range sortedKeys(l.delayed) {
		out = append(out, fmt.Sprintf("interrupted: %s left with MASTER_DELAY=%d: run STOP SLAVE; CHANGE MASTER TO MASTER_DELAY=0; START SLAVE on it",
			names[n], int(l.delayed[n]/time.Second)))
	}
	return out
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}
