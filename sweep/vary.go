package sweep

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// What is one kind of setting an axis varies.
type What uint8

// The settings a sweep can vary. Adding one is one case here, in ParseVary and in Grid.apply.
const (
	// Threshold is a statemap condition's threshold, in ticks of 10 s: CONDITION.threshold.
	Threshold What = iota + 1
	// Interval is the checker's interval between a node's probe starts.
	Interval
	// Timeout is the checker's budget per probe.
	Timeout
	// Gap is the group's gap-threshold, in ticks: a silent member leaves a view at its Gap-th
	// silent tick. It acts only on traces with partitions, host crashes or witnesses.
	Gap
	// Failsafe is the group's failsafe-threshold, in ticks: a manager shuns its datasource at
	// its Failsafe-th non-primary tick in a row. Like Gap, it acts only on partition traces.
	Failsafe
)

// MaxValues is the most values one axis may take, and MaxPoints the most points a grid may
// hold: each point replays every trace.
const (
	MaxValues = 1000
	MaxPoints = 10000
)

// Axis is one --vary: a setting and the values it takes, in increasing order.
type Axis struct {
	Name      string             // as given: "login_response_timeout.threshold", "interval"
	What      What               // what it varies
	Condition statemap.Condition // Threshold: the condition whose threshold it is
	Values    []int64            // Threshold, Gap and Failsafe: ticks; Interval and Timeout: nanoseconds (a time.Duration)
}

// Format writes value v of the axis as --vary reads it: "8", "3s".
func (a Axis) Format(v int64) string {
	if a.ticks() {
		return strconv.FormatInt(v, 10)
	}
	return time.Duration(v).String()
}

// Spec is the axis as --vary wrote it, in a canonical form: NAME=FROM..TO:STEP.
func (a Axis) Spec() string {
	lo, hi := a.Values[0], a.Values[len(a.Values)-1]
	step := int64(1)
	if !a.ticks() {
		step = int64(time.Second)
	}
	if len(a.Values) > 1 {
		step = a.Values[1] - a.Values[0]
	}
	return fmt.Sprintf("%s=%s..%s:%s", a.Name, a.Format(lo), a.Format(hi), a.Format(step))
}

// ticks reports whether the axis's values are counts of ticks, not durations.
func (a Axis) ticks() bool { return a.What == Threshold || a.What == Gap || a.What == Failsafe }

// Liveness reports whether the axis varies a group liveness setting (Gap or Failsafe).
func (a Axis) Liveness() bool { return a.What == Gap || a.What == Failsafe }

// ErrNeedsPartitions is why a liveness setting cannot be varied on a run without partition
// traces.
var ErrNeedsPartitions = errors.New("a liveness setting acts only under partitions, host crashes and witnesses, which only the partition family generates")

// ParseVary reads one --vary: NAME=FROM..TO[:STEP]. NAME is CONDITION.threshold (an integer
// from -1 to statemap.MaxThreshold; STEP defaults to 1), interval or timeout (durations with
// units, from 1ms to 24h; STEP defaults to 1s), or gap-threshold or failsafe-threshold, also
// written liveness.gap-threshold (ticks from 1 to timeline.MaxLivenessThreshold; STEP 1). FROM must not exceed TO; the values are FROM,
// FROM+STEP, ... up to TO, at most MaxValues of them.
func ParseVary(s string) (Axis, error) {
	name, rng, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return Axis{}, fmt.Errorf("%q: want NAME=FROM..TO[:STEP], e.g. login_response_timeout.threshold=1..12", s)
	}
	a := Axis{Name: name}
	switch {
	case name == "interval":
		a.What = Interval
	case name == "timeout":
		a.What = Timeout
	case strings.TrimPrefix(name, "liveness.") == "gap-threshold":
		a.What = Gap
	case strings.TrimPrefix(name, "liveness.") == "failsafe-threshold":
		a.What = Failsafe
	default:
		cond, key, ok := strings.Cut(name, ".")
		if !ok {
			return Axis{}, fmt.Errorf("%s: want CONDITION.threshold, interval, timeout, gap-threshold or failsafe-threshold", name)
		}
		c, known := statemap.ParseCondition(cond)
		if !known {
			return Axis{}, fmt.Errorf("%s: unknown condition %q%s", name, cond, statemap.Hint(cond))
		}
		if c == statemap.OK {
			return Axis{}, fmt.Errorf("%s: ok is fixed: it deletes alarms and has no threshold to vary", name)
		}
		switch key {
		case "threshold":
		case "state", "action":
			return Axis{}, fmt.Errorf("%s: only a condition's threshold can be varied: its %s is a choice, not a range", name, key)
		default:
			return Axis{}, fmt.Errorf("%s: unknown key %q: want %s.threshold", name, key, cond)
		}
		a.What, a.Condition = Threshold, c
	}
	from, to, ok := strings.Cut(rng, "..")
	if !ok {
		return Axis{}, fmt.Errorf("%s: %q: want FROM..TO[:STEP]", name, rng)
	}
	to, stepText, hasStep := strings.Cut(to, ":")
	lo, err := a.parse(from)
	if err != nil {
		return Axis{}, fmt.Errorf("%s: FROM %w", name, err)
	}
	hi, err := a.parse(to)
	if err != nil {
		return Axis{}, fmt.Errorf("%s: TO %w", name, err)
	}
	step := int64(1)
	if !a.ticks() {
		step = int64(time.Second)
	}
	if hasStep {
		if step, err = a.parse(stepText); err != nil {
			return Axis{}, fmt.Errorf("%s: STEP %w", name, err)
		}
		if step <= 0 {
			return Axis{}, fmt.Errorf("%s: STEP %s: want a step above 0", name, stepText)
		}
	}
	if lo > hi {
		return Axis{}, fmt.Errorf("%s: FROM %s is above TO %s", name, from, to)
	}
	if n := (hi-lo)/step + 1; n > MaxValues {
		return Axis{}, fmt.Errorf("%s: %d values, more than the %d an axis may take: use a larger STEP", name, n, MaxValues)
	}
	for v := lo; v <= hi; v += step {
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// parse reads one value of the axis.
func (a Axis) parse(s string) (int64, error) {
	if a.Liveness() {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 || n > timeline.MaxLivenessThreshold {
			return 0, fmt.Errorf("%q: want an integer from 1 to %d (ticks of 10 s)", s, timeline.MaxLivenessThreshold)
		}
		return n, nil
	}
	if a.What == Threshold {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < -1 || n > statemap.MaxThreshold {
			return 0, fmt.Errorf("%q: want an integer from -1 to %d (ticks of 10 s; -1 never)", s, statemap.MaxThreshold)
		}
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Millisecond || d > timeline.MaxChecker {
		return 0, fmt.Errorf("%q: want a duration from 1ms to 24h, e.g. 3s", s)
	}
	return int64(d), nil
}
