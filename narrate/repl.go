package narrate

import (
	"fmt"
	"strings"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// describeRepl says in words the replication model's decisions and notes (package repl); ok
// is false for any other event.
func describeRepl(names []string, ev act.Event) (s string, ok bool) {
	switch ev := ev.(type) {
	case *act.Replicated:
		return names[repl.EventNode(ev.Input)] + " " + ReplInput(ev.Input), true
	case *repl.Promoted:
		return fmt.Sprintf("%s promoted at position %d%s; %s; %s", names[ev.Node], ev.Stored, rankingWords(names, ev.Ranking), backlogWords(ev.Backlog), LossWords(names, ev.Lost)), true
	case *repl.Writable:
		switch {
		case ev.Unapplied > 0:
			return fmt.Sprintf("%s takes writes after the apply wait of %s, with %d stored positions still to apply (applied after, not lost)", names[ev.Node], ev.Waited, ev.Unapplied), true
		case ev.Waited > 0:
			return fmt.Sprintf("%s takes writes: it applied what it stored, %s after its promotion", names[ev.Node], ev.Waited), true
		}
		return fmt.Sprintf("%s takes writes at once: nothing to apply", names[ev.Node]), true
	case *repl.FellBack:
		return fmt.Sprintf("%s semisync fell back to async: no replica stored a commit for %s; %d waiting commits answered", names[ev.Master], ev.At-ev.Since, ev.Waiting), true
	case *repl.Returned:
		return fmt.Sprintf("%s semisync is back: %s stored every commit", names[ev.Master], names[ev.Replica]), true
	case *repl.Overwritten:
		kept := "a copy with no master"
		if ev.Kept >= 0 {
			kept = names[ev.Kept] + "'s copy"
		}
		return fmt.Sprintf("%s overwritten by %s at the merge; %s", names[ev.Node], kept, LossWords(names, ev.Lost)), true
	case *repl.Unranked:
		return fmt.Sprintf("%s no candidate by the ranking: %s", names[ev.Master], Excluded(names, ev.Standings)), true
	case *repl.Final:
		return "replication summary", true
	case *repl.AppTarget:
		return AppTargetWords(names, *ev), true
	case *repl.StreamCut:
		if ev.Cut {
			return fmt.Sprintf("%s stream from %s cut by the partition: it stores nothing new", names[ev.Node], names[ev.Source]), true
		}
		return fmt.Sprintf("%s stream from %s restored: it stores what its lag allows", names[ev.Node], names[ev.Source]), true
	}
	return "", false
}

// AppTargetWords says where the application's writes go: "application beside db2 writes to
// db1, the writable master on its side", "application beside db1 reaches no writable master:
// its writes fail".
func AppTargetWords(names []string, ev repl.AppTarget) string {
	if ev.Master < 0 {
		return fmt.Sprintf("application beside %s reaches no writable master: its writes fail", names[ev.Near])
	}
	return fmt.Sprintf("application beside %s writes to %s, the writable master on its side", names[ev.Near], names[ev.Master])
}

// ReplInput writes a timeline's replication event as the timeline does, after the node: "lag
// 5s", "link freeze", "replicator stop".
func ReplInput(in repl.Input) string { return timeline.ReplWords(in) }

// rankingWords says the ranking a promotion used: ", ranked first of db3 (stored 5701), db2
// (stored 4000, lagging 22s)", with the excluded after; "" when there was none.
func rankingWords(names []string, ranking []repl.Standing) string {
	if len(ranking) == 0 {
		return ""
	}
	var cands []string
	for _, s := range ranking {
		if s.Excluded == repl.Candidate {
			cands = append(cands, standingWords(names, s))
		}
	}
	out := ", ranked first of " + strings.Join(cands, ", ")
	if ex := Excluded(names, ranking); ex != "" {
		out += "; not candidates: " + ex
	}
	return out
}

// standingWords writes a candidate's standing: "db2 (stored 4000, lag 22s)".
func standingWords(names []string, s repl.Standing) string {
	if s.Lag > 0 {
		return fmt.Sprintf("%s (stored %d, lag %s)", names[s.Node], s.Stored, s.Lag)
	}
	return fmt.Sprintf("%s (stored %d)", names[s.Node], s.Stored)
}

// Excluded says which replicas the ranking excluded for a replication reason and why, in
// cluster order: "db2 replicator-stopped (stored 300), db3 lagging (stored 100, lag 30s)".
// The nodes the engine found ineligible are left out: its own reasons say why.
func Excluded(names []string, standings []repl.Standing) string {
	var out []string
	for _, s := range standings {
		if s.Excluded == repl.Candidate || s.Excluded == repl.NotEligible {
			continue
		}
		w := fmt.Sprintf("%s %s (stored %d", names[s.Node], s.Excluded, s.Stored)
		if s.Lag > 0 {
			w += ", lag " + s.Lag.String()
		}
		out = append(out, w+")")
	}
	return strings.Join(out, ", ")
}

func backlogWords(n int64) string {
	if n == 0 {
		return "nothing stored left to apply"
	}
	return fmt.Sprintf("%d stored positions to apply before it takes writes", n)
}

// LossWords says what a failover or merge lost: "lost 299 acknowledged writes of db1
// (positions 5702..6000)", "lost no acknowledged write".
func LossWords(names []string, l repl.Loss) string {
	switch {
	case l.Deferred:
		return "what is lost is decided when the sides merge"
	case l.Count == 0:
		return "lost no acknowledged write"
	}
	of := ""
	if l.Master >= 0 {
		of = " of " + names[l.Master]
	}
	return fmt.Sprintf("lost %s%s (positions %d..%d)", plural64(l.Count, "acknowledged write"), of, l.First, l.Last)
}

func plural64(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// replJSON fills the fields of j that a replication event has; ok is false for any other.
func replJSON(j *EventJSON, names []string, ev act.Event) bool {
	switch ev := ev.(type) {
	case *act.Replicated:
		j.Event, j.Node, j.Detail = "replication", names[repl.EventNode(ev.Input)], ReplInput(ev.Input)
	case *repl.Promoted:
		j.Event, j.Node = "promoted", names[ev.Node]
		if ev.From >= 0 {
			j.From = names[ev.From]
		}
		n := int(ev.Lost.Count)
		j.Count, j.Detail = &n, LossWords(names, ev.Lost)
	case *repl.Writable:
		j.Event, j.Node = "writable", names[ev.Node]
	case *repl.FellBack:
		j.Event, j.Master = "semisync-fallback", names[ev.Master]
	case *repl.Returned:
		j.Event, j.Master, j.Node = "semisync-returned", names[ev.Master], names[ev.Replica]
	case *repl.Overwritten:
		j.Event, j.Node = "overwritten", names[ev.Node]
		n := int(ev.Lost.Count)
		j.Count, j.Detail = &n, LossWords(names, ev.Lost)
	case *repl.Unranked:
		j.Event, j.Node, j.Detail = "unranked", names[ev.Master], Excluded(names, ev.Standings)
	case *repl.AppTarget:
		j.Event, j.Node = "application", names[ev.Near]
		if ev.Master >= 0 {
			j.Master = names[ev.Master]
		}
	case *repl.StreamCut:
		j.Event, j.Node, j.Master = "stream-restored", names[ev.Node], names[ev.Source]
		if ev.Cut {
			j.Event = "stream-cut"
		}
	default:
		return false
	}
	return true
}
