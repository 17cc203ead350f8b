package sweep

import (
	"fmt"
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// incidentVerdict is what a replay of an incident says: its outcome, and which expectations
// held.
type incidentVerdict struct {
	outcome string // "failover of db1 to db2", "db1 failed, no replica eligible", "no failover"
	at      string // the clock time of the outcome; "" for no failover
	held    []bool
}

// outcomeWatch notes the first fence of a master.
type outcomeWatch struct {
	names []string
	start time.Time
	v     *incidentVerdict
}

func (o *outcomeWatch) Event(ev act.Event) {
	if o.v.at != "" {
		return
	}
	switch ev := ev.(type) {
	case *fence.Failover:
		o.v.outcome, o.v.at = fmt.Sprintf("failover of %s to %s", o.names[ev.Node], o.names[ev.To]), timeline.Clock(o.start, ev.At)
	case *fence.NoCandidate:
		o.v.outcome, o.v.at = fmt.Sprintf("%s failed, no replica eligible", o.names[ev.Node]), timeline.Clock(o.start, ev.At)
	case *fence.NodeFailed:
		if ev.Role == fence.Master {
			o.v.outcome, o.v.at = fmt.Sprintf("%s failed, no failover (manual)", o.names[ev.Node]), timeline.Clock(o.start, ev.At)
		}
	}
}

// replayIncident replays tl under m and returns its verdict.
func replayIncident(tl *timeline.Timeline, m *statemap.Map) incidentVerdict {
	v := incidentVerdict{outcome: "no failover"}
	xs := expect.NewSet(tl, m)
	sim.Replay(tl, m, &outcomeWatch{names: tl.Names(), start: tl.Start, v: &v}, xs)
	for _, r := range xs.Results() {
		v.held = append(v.held, r.Held)
	}
	return v
}

// incidentsAt replays every incident with values laid over its own statemap and checker.
func incidentsAt(g Grid, values []int64, incs []Incident, baseline []incidentVerdict) []IncidentResult {
	out := make([]IncidentResult, len(incs))
	for j, inc := range incs {
		s := g.apply(Base{Map: inc.Map, Interval: inc.Timeline.Interval, Timeout: inc.Timeline.Timeout}, values)
		tl := *inc.Timeline
		tl.Interval, tl.Timeout = s.Interval, s.Timeout
		v := replayIncident(&tl, s.Map)
		failed := 0
		for _, h := range v.held {
			if !h {
				failed++
			}
		}
		out[j] = IncidentResult{File: inc.Timeline.File, Outcome: v.outcome, At: v.at, ExpectationsFailed: failed,
			Changed: v.outcome != baseline[j].outcome || !slices.Equal(v.held, baseline[j].held)}
	}
	return out
}
