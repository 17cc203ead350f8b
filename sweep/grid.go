package sweep

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/statemap"
)

// Grid is the product of the axes: the first axis outermost.
type Grid struct {
	Axes []Axis
}

// Len is the number of points.
func (g Grid) Len() int {
	n := 1
	for _, a := range g.Axes {
		n *= len(a.Values)
	}
	return n
}

// Point returns the values of point i, one per axis, the last axis varying fastest.
func (g Grid) Point(i int) []int64 {
	out := make([]int64, len(g.Axes))
	for k := len(g.Axes) - 1; k >= 0; k-- {
		n := len(g.Axes[k].Values)
		out[k] = g.Axes[k].Values[i%n]
		i /= n
	}
	return out
}

// Base is what a point's settings are laid over: a statemap and a checker. The group's
// liveness thresholds in force are the defaults (group.DefaultGapThreshold and
// group.DefaultFailsafeThreshold).
type Base struct {
	Map      *statemap.Map
	Interval time.Duration
	Timeout  time.Duration
}

// Setting is one point's values laid over a base: the statemap, the checker and the group's
// liveness thresholds it replays under.
type Setting struct {
	Map      *statemap.Map
	Interval time.Duration
	Timeout  time.Duration
	// Gap and Failsafe are the group's thresholds in ticks; 0 leaves the trace's own.
	Gap, Failsafe int
}

// apply lays values (one per axis of g) over b.
func (g Grid) apply(b Base, values []int64) Setting {
	s := Setting{Map: b.Map, Interval: b.Interval, Timeout: b.Timeout}
	var rules statemap.Rules
	for k, a := range g.Axes {
		switch a.What {
		case Threshold:
			if rules == nil {
				rules = statemap.Rules{}
				for _, c := range statemap.Conditions() {
					rules[c] = b.Map.Rule(c)
				}
			}
			r := rules[a.Condition]
			r.Threshold = int(values[k])
			r.Source = "--vary " + a.Name
			rules[a.Condition] = r
		case Interval:
			s.Interval = time.Duration(values[k])
		case Timeout:
			s.Timeout = time.Duration(values[k])
		case Gap:
			s.Gap = int(values[k])
		case Failsafe:
			s.Failsafe = int(values[k])
		default:
			panic(fmt.Sprintf("sweep: axis %s varies nothing known", a.Name))
		}
	}
	if rules != nil {
		s.Map = statemap.New(rules)
	}
	return s
}

// inForce returns the values the base itself gives each axis: the point of the statemap and
// checker in force.
func (g Grid) inForce(b Base) []int64 {
	out := make([]int64, len(g.Axes))
	for k, a := range g.Axes {
		switch a.What {
		case Threshold:
			out[k] = int64(b.Map.Rule(a.Condition).Threshold)
		case Interval:
			out[k] = int64(b.Interval)
		case Timeout:
			out[k] = int64(b.Timeout)
		case Gap:
			out[k] = group.DefaultGapThreshold
		case Failsafe:
			out[k] = group.DefaultFailsafeThreshold
		}
	}
	return out
}

// index returns the grid index of values, or -1 when they are no point of the grid.
func (g Grid) index(values []int64) int {
	i := 0
	for k, a := range g.Axes {
		j := -1
		for n, v := range a.Values {
			if v == values[k] {
				j = n
				break
			}
		}
		if j < 0 {
			return -1
		}
		i = i*len(a.Values) + j
	}
	return i
}

// label writes values as "name=value, name=value".
func (g Grid) label(values []int64) string {
	var parts []string
	for k, a := range g.Axes {
		parts = append(parts, a.Name+"="+a.Format(values[k]))
	}
	return strings.Join(parts, ", ")
}
