package htmlreport

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// counted is one probe outcome, as the driver counts it.
type counted struct {
	at   time.Duration
	cond statemap.Condition
}

// everyProbe runs tl through a driver that foresees nothing, so it runs every probe, each ending
// as the fault model says: the probes the simulator's shortcut skips included. It returns the
// outcomes the driver counted, per node.
func everyProbe(tl *timeline.Timeline) [][]counted {
	e := fence.New(fence.Config{Nodes: tl.Nodes, Map: statemap.Default(), Policy: tl.Policy})
	out := make([][]counted, len(tl.Nodes))
	g := &cluster.Config{Witnesses: len(tl.Witnesses), GapThreshold: tl.GapThreshold, FailsafeThreshold: tl.FailsafeThreshold}
	d := drive.New(core.New(e, g), drive.Config{
		Interval: tl.Interval, Script: tl.Events, End: tl.End,
		Counted: func(at time.Duration, node int, c statemap.Condition) { out[node] = append(out[node], counted{at, c}) },
	})
	faults := make([]fault.Fault, len(tl.Nodes))
	for !d.Ended() {
		w := d.Begin(d.Next())
		for _, f := range w.Faults {
			faults[f.Node] = f.Fault
		}
		for _, s := range w.Starts {
			o := faultmodel.Predict(faults[s.Node], tl.Timeout)
			d.Report(s, s.At+o.Took, o.Condition)
		}
		d.Close()
	}
	return out
}

// expand lists the probes of a node's runs by the instant each counts.
func expand(runs []probeRun) []counted {
	var out []counted
	for _, r := range runs {
		for k := range r.n {
			out = append(out, counted{r.first + time.Duration(k)*r.step + r.took, r.cond})
		}
	}
	return out
}

// randomTimeline writes a short timeline of faults, manager stops and starts at random offsets
// (some whole seconds, landing on ticks and probe starts, some not), with a probe interval and
// budget that make some probes outlast the interval.
func randomTimeline(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	faults := []string{"heal", "heal", "refuse", "freeze", "stall", "slow 2s", "slow 4s", "slow 9s", "error 1040", "unreachable", "probe query_exec_timeout"}
	var b strings.Builder
	fmt.Fprintf(&b, "cluster db1:master db2:replica db3:replica\nchecker interval=%ds timeout=%ds\n", 1+r.IntN(4), 2+r.IntN(6))
	for range 5 + r.IntN(30) {
		d := time.Duration(r.IntN(40)) * time.Second
		if r.IntN(3) == 0 {
			d += time.Duration(r.IntN(1000)) * time.Millisecond
		}
		fmt.Fprintf(&b, "+%s db%d ", d, 1+r.IntN(3))
		switch k := r.IntN(10); {
		case k < 6:
			b.WriteString(faults[r.IntN(len(faults))] + "\n")
		case k < 8:
			b.WriteString("manager down\n")
		default:
			b.WriteString("manager up\n")
		}
	}
	return b.String()
}

// TestProbeScheduleIsTheDriversSchedule: the probes the picture draws, worked out from the
// timeline, are the probes a driver that runs every probe counts, at the same instants and with
// the same outcomes: on every shipped incident and rule, a day of 2,000 faults, and random
// timelines with manager stops and probes that outlast the interval.
func TestProbeScheduleIsTheDriversSchedule(t *testing.T) {
	texts := map[string]string{"day": daytimeline.Text(2000, 1)}
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	rules, _ := filepath.Glob("../sim/testdata/rules/*.timeline")
	if len(files) < 10 || len(rules) == 0 {
		t.Fatalf("found %d incidents and %d rules", len(files), len(rules))
	}
	for _, f := range append(files, rules...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(data)
	}
	for seed := range uint64(300) {
		texts[fmt.Sprintf("random-%d", seed)] = randomTimeline(seed)
	}
	names := make([]string, 0, len(texts))
	for n := range texts {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		tl, err := timeline.Parse(name, []byte(texts[name]))
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, texts[name])
		}
		want := everyProbe(tl)
		got := probeSchedule(len(tl.Nodes), tl.Interval, tl.Events, tl.End, func(f fault.Fault) act.Outcome { return faultmodel.Predict(f, tl.Timeout) })
		for i := range want {
			g := expand(got[i])
			if !slices.Equal(g, want[i]) {
				k := 0
				for k < min(len(g), len(want[i])) && g[k] == want[i][k] {
					k++
				}
				t.Errorf("%s: node %d: %d probes worked out, the driver counted %d; first difference at probe %d: got %v, want %v\n%s",
					name, i, len(g), len(want[i]), k, at(g, k), at(want[i], k), texts[name])
				break
			}
		}
	}
}

func at(cs []counted, k int) any {
	if k < len(cs) {
		return cs[k]
	}
	return "none"
}
