package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Config is one run of failsim sweep, or one shard of it.
type Config struct {
	Grid Grid
	// Map is the statemap in force: the base every point's thresholds are laid over.
	Map *statemap.Map
	// StatemapPath and StatemapText are the --statemap file Map was built from and its bytes
	// ("" for the shipped defaults), as the run's identity records them.
	StatemapPath, StatemapText string
	Shape                      check.Shape // the traces' cluster, length and base checker
	Benign                     int         // benign traces, generated once and replayed at every point; 0: none
	Fatal                      int         // fatal traces, likewise; 0: none
	// Partition is the number of partition traces (check's partition family), likewise; 0:
	// none. Only they make the group's liveness settings act: a grid that varies one needs
	// them.
	Partition int
	Seed      uint64 // trace i of a family is generated from check.TraceRand(Seed, i)
	// Incidents are replayed at every point, each under its own statemap in force (--statemap,
	// else its statement, else the defaults) and checker, with the point's values laid over.
	Incidents []Incident
	Shard     Shard
	Workers   int // goroutines replaying; <= 0 means GOMAXPROCS
	// Workload, if not nil, gives every trace a workload and the replication its family adds
	// (check's --workload): each point then also measures the client's view (ClientStats).
	Workload *check.Workload

	noMemo bool // replay every trace at every point: for the test that the shortcut changes nothing
	fresh  bool // replay through sim.Replay, not a worker's Replayer: for the test that reuse changes nothing
}

// Incident is a timeline replayed at every point.
type Incident struct {
	Timeline *timeline.Timeline
	Map      *statemap.Map // its effective statemap
	SHA256   string        // of its file, hex: the run's identity records it
}

// Shard is which share of the points a run computes: those whose index i in the work list
// has i % N == K. The zero value, like N 1, is the whole run.
type Shard struct{ K, N int }

func (s Shard) of() int { return max(s.N, 1) }

// ErrNoTraces is returned when a run has no trace to replay.
var ErrNoTraces = errors.New("no trace to replay")

// MaxResults is the most results (a trace at a point) a run may hold a family: each is kept
// until the run ends.
const MaxResults = 20_000_000

// ErrTooBig is returned when a run would hold more than MaxResults results a family.
var ErrTooBig = errors.New("the run is too big to hold")

// ErrTooLong is returned when a point fences a fault later than a trace leaves room to see.
var ErrTooLong = errors.New("a trace is too short to see every point fence")

// Compute runs the shard of the grid cfg.Shard names and returns its share. The traces are
// generated once, from cfg.Map and cfg.Shape, and the same set is replayed at every point: the
// fatal ones draw their faults from the conditions the grid varies (from every fault the
// statemap fences when it varies none). The share depends on the configuration alone, not on
// Workers or scheduling.
func Compute(ctx context.Context, cfg Config) (*Share, error) {
	for _, a := range cfg.Grid.Axes {
		if a.Liveness() && (cfg.Partition < 1 || cfg.Benign > 0 || cfg.Fatal > 0) {
			return nil, fmt.Errorf("%s: %w", a.Name, ErrNeedsPartitions)
		}
	}
	if cfg.Benign < 1 && cfg.Fatal < 1 && cfg.Partition < 1 {
		return nil, ErrNoTraces
	}
	if k, n := cfg.Shard.K, cfg.Shard.of(); k < 0 || k >= n {
		return nil, fmt.Errorf("shard %d of %d: want a shard from 0 to %d", k, n, n-1)
	}
	if len(cfg.Grid.Axes) == 0 {
		return nil, errors.New("nothing to vary")
	}
	if n := cfg.Grid.Len(); n > MaxPoints {
		return nil, fmt.Errorf("the grid has %d points, more than %d", n, MaxPoints)
	}
	base := Base{Map: cfg.Map, Interval: cfg.Shape.Interval, Timeout: cfg.Shape.Timeout}
	work := workList(cfg.Grid, base)
	if most := max(cfg.Benign, cfg.Fatal, cfg.Partition); len(work)*most > MaxResults || len(work)*most < 0 {
		return nil, fmt.Errorf("%d points of %d traces are %d results a family, more than %d: %w", len(work), most, len(work)*most, MaxResults, ErrTooBig)
	}
	var faults []string
	var benign, fatal, partition []*timeline.Timeline
	var starts []time.Duration
	if cfg.Benign > 0 {
		g, err := check.NewGeneratorOptions(check.Benign, cfg.Shape, cfg.Map, check.Options{Workload: cfg.Workload})
		if err != nil {
			return nil, err
		}
		if benign, err = generate(ctx, g, cfg.Seed, cfg.Benign); err != nil {
			return nil, err
		}
	}
	if cfg.Partition > 0 {
		g, err := check.NewGeneratorOptions(check.Partition, cfg.Shape, cfg.Map, check.Options{Workload: cfg.Workload})
		if err != nil {
			return nil, err
		}
		if partition, err = generate(ctx, g, cfg.Seed, cfg.Partition); err != nil {
			return nil, err
		}
	}
	if cfg.Fatal > 0 {
		g, within, err := fatalGenerator(cfg.Grid, base, cfg.Shape, work, cfg.Workload)
		if err != nil {
			return nil, err
		}
		for _, f := range g.FatalFaults() {
			faults = append(faults, f.String())
		}
		if fatal, err = generate(ctx, g, cfg.Seed, cfg.Fatal); err != nil {
			return nil, err
		}
		for _, tl := range fatal {
			// Every point that fences the fault does so within its promise, at most within:
			// what comes after cannot change when the master was first fenced.
			at := fatalStart(tl)
			starts = append(starts, at)
			tl.End = min(tl.End, at+within)
			n, _ := slices.BinarySearchFunc(tl.Events, tl.End+1, func(ev timeline.Event, t time.Duration) int { return cmp.Compare(ev.At, t) })
			tl.Events = tl.Events[:n]
			if tl.Repl != nil {
				r := *tl.Repl
				n, _ := slices.BinarySearchFunc(r.Events, tl.End+1, func(ev timeline.ReplEvent, t time.Duration) int { return cmp.Compare(ev.At, t) })
				r.Events = r.Events[:n]
				tl.Repl = &r
			}
		}
	}

	sh := &Share{Kind: ShareKind, Run: cfg.identity(), Shard: cfg.Shard.K, Of: cfg.Shard.of(), FatalFaults: faults,
		Points: len(work), InForce: cfg.Grid.index(cfg.Grid.inForce(base))}
	if sh.InForce < 0 {
		sh.InForce = len(work) - 1
	}
	var mine []int // indexes into work
	for i := range work {
		if i%cfg.Shard.of() == cfg.Shard.K {
			mine = append(mine, i)
		}
	}
	// The incidents under their own statemaps in force: what a point's verdict is compared with.
	baseline := make([]incidentVerdict, len(cfg.Incidents))
	for j, inc := range cfg.Incidents {
		baseline[j] = replayIncident(inc.Timeline, inc.Map)
	}

	// Tasks: chunks of traces, each replayed at every point of the shard; each point's
	// incidents.
	type task struct {
		fatal     bool
		partition bool
		from, to  int
		incidents int // 1 + the point, for a task of incidents
	}
	const chunk = 16
	var tasks []task
	for i := 0; i < len(benign); i += chunk {
		tasks = append(tasks, task{from: i, to: min(i+chunk, len(benign))})
	}
	for i := 0; i < len(fatal); i += chunk {
		tasks = append(tasks, task{fatal: true, from: i, to: min(i+chunk, len(fatal))})
	}
	for i := 0; i < len(partition); i += chunk {
		tasks = append(tasks, task{partition: true, from: i, to: min(i+chunk, len(partition))})
	}
	if len(cfg.Incidents) > 0 {
		for p := range mine {
			tasks = append(tasks, task{incidents: 1 + p})
		}
	}
	type pointWork struct {
		values    []int64
		set       Setting
		falseAt   []bool          // per benign trace: the master was fenced
		detect    []time.Duration // per fatal trace: time to fence, or missed / early
		client    [2][]outcome    // with a workload, per benign and per fatal trace: the client's view
		split     []outcome       // per partition trace: the split-brain and writerless times
		incidents []IncidentResult
	}
	pw := make([]pointWork, len(mine))
	for p, i := range mine {
		pw[p] = pointWork{values: work[i], set: cfg.Grid.apply(base, work[i]),
			falseAt: make([]bool, len(benign)), detect: make([]time.Duration, len(fatal)), split: make([]outcome, len(partition))}
		if cfg.Workload != nil {
			pw[p].client = [2][]outcome{make([]outcome, len(benign)), make([]outcome, len(fatal))}
		}
	}
	values := make([][]int64, len(pw))
	for p := range pw {
		values[p] = pw[p].values
	}
	rows := cfg.Grid.rows(values)
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next, replays atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := watch{fresh: cfg.fresh}
			memo := map[memoKey]outcome{}
			ats := make([]time.Duration, len(pw))
			outs := make([]outcome, len(pw))
			// fenced replays trace tl at every point into put, and no more often than it
			// must: once for the points that differ only in thresholds of conditions its
			// probes never end in, and, without a workload, not at all between two points of
			// a row that agree. With a workload the row's shortcut is off: two points that
			// fence the master at one time may still differ in what the client saw after it.
			fenced := func(tl *timeline.Timeline, put func(p int, o outcome)) {
				clear(memo)
				var m conditionMasks
				eval := func(p int) outcome {
					key, ok := cfg.Grid.memoKey(pw[p].values, m.of(tl, pw[p].set.Timeout))
					o, seen := memo[key]
					if !ok || !seen {
						o = w.replay(tl, pw[p].set)
						replays.Add(1)
						if ok {
							memo[key] = o
						}
					}
					return o
				}
				switch {
				case cfg.noMemo:
					for p := range pw {
						put(p, w.replay(tl, pw[p].set))
					}
					replays.Add(int64(len(pw)))
					return
				case cfg.Workload != nil:
					for p := range pw {
						outs[p] = eval(p)
					}
				default:
					for _, row := range rows {
						fillRow(row, ats, func(p int) time.Duration { return eval(p).at })
					}
					for p := range pw {
						outs[p] = outcome{at: ats[p]}
					}
				}
				for p := range pw {
					put(p, outs[p])
				}
			}
			for ctx.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= len(tasks) {
					return
				}
				t := tasks[k]
				w.group = t.partition // only partition traces have primary views to look at
				switch {
				case t.incidents > 0:
					p := &pw[t.incidents-1]
					p.incidents = incidentsAt(cfg.Grid, p.values, cfg.Incidents, baseline)
				case t.partition:
					// No shortcut: the row's rests on the first fence, which says nothing of
					// split brain, and the memo's on conditions, which say nothing of the
					// group. Every point replays every partition trace.
					for i := t.from; i < t.to; i++ {
						for p := range pw {
							pw[p].split[i] = w.replay(partition[i], pw[p].set)
						}
						replays.Add(int64(len(pw)))
					}
				case t.fatal:
					for i := t.from; i < t.to; i++ {
						fenced(fatal[i], func(p int, o outcome) {
							at := o.at
							if pw[p].client[1] != nil {
								pw[p].client[1][i] = o
							}
							switch {
							case at < 0:
								pw[p].detect[i] = missed
							case at < starts[i]:
								pw[p].detect[i] = early
							default:
								pw[p].detect[i] = at - starts[i]
							}
						})
					}
				default:
					for i := t.from; i < t.to; i++ {
						fenced(benign[i], func(p int, o outcome) {
							pw[p].falseAt[i] = o.at >= 0
							if pw[p].client[0] != nil {
								pw[p].client[0][i] = o
							}
						})
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sh.replays = int(replays.Load())
	for p, i := range mine {
		pt := SharePoint{Index: i, Values: pw[p].values, Incidents: pw[p].incidents}
		if len(benign) > 0 {
			pt.Benign = benignStats(pw[p].falseAt)
			pt.Benign.Client = clientStats(pw[p].client[0])
		}
		if len(fatal) > 0 {
			pt.Fatal = fatalStats(pw[p].detect)
			pt.Fatal.Client = clientStats(pw[p].client[1])
		}
		if len(partition) > 0 {
			pt.Partition = partitionStats(pw[p].split)
			if cfg.Workload != nil {
				pt.Partition.Client = clientStats(pw[p].split)
			}
		}
		sh.Computed = append(sh.Computed, pt)
	}
	return sh, nil
}

// Run runs the whole grid: Compute of every shard at once, assembled as MergeShares would.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg.Shard = Shard{K: 0, N: 1}
	sh, err := Compute(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res, err := assemble([]*Share{sh})
	if res != nil {
		res.replays = sh.replays
	}
	return res, err
}

// identity is the run's identity, for its shares.
func (cfg Config) identity() Identity {
	id := Identity{Statemap: cfg.StatemapPath, StatemapText: cfg.StatemapText, Seed: cfg.Seed, Nodes: cfg.Shape.Nodes,
		Length: cfg.Shape.Length.String(), Interval: cfg.Shape.Interval.String(), Timeout: cfg.Shape.Timeout.String(),
		BenignTraces: cfg.Benign, FatalTraces: cfg.Fatal, PartitionTraces: cfg.Partition, Incidents: []Input{}}
	if cfg.Workload != nil {
		id.Workload = cfg.Workload.String()
	}
	for _, a := range cfg.Grid.Axes {
		id.Vary = append(id.Vary, a.Spec())
	}
	for _, inc := range cfg.Incidents {
		id.Incidents = append(id.Incidents, Input{File: inc.Timeline.File, SHA256: inc.SHA256})
	}
	return id
}

// workList is the grid's points in order, then the point in force when it is none of them.
func workList(g Grid, b Base) [][]int64 {
	var work [][]int64
	for i := range g.Len() {
		work = append(work, g.Point(i))
	}
	if in := g.inForce(b); g.index(in) < 0 {
		work = append(work, in)
	}
	return work
}

// fatalGenerator makes the generator of fatal traces: narrowed to the conditions the grid
// varies, and each trace long enough after its fault for every point of work to fence it
// within its promise. It returns that span too: the longest promise, and a tick more.
func fatalGenerator(g Grid, b Base, shape check.Shape, work [][]int64, wl *check.Workload) (*check.Generator, time.Duration, error) {
	var conds []statemap.Condition
	for _, a := range g.Axes {
		if a.What == Threshold {
			conds = append(conds, a.Condition)
		}
	}
	opt := check.Options{Workload: wl}
	if len(conds) > 0 {
		opt.FatalOnly = func(c statemap.Condition) bool { return slices.Contains(conds, c) }
	}
	probe, err := check.NewGeneratorOptions(check.Fatal, shape, b.Map, opt)
	if err != nil {
		if errors.Is(err, check.ErrNothingFatal) && len(conds) > 0 {
			var names []string
			for _, c := range conds {
				names = append(names, c.String())
			}
			return nil, 0, nothingFatal("no fatal trace can be made: the statemap in force fences no fault whose probes end in " + strings.Join(names, " or "))
		}
		return nil, 0, err
	}
	// The latest any point fences any of the faults: its promise there.
	var within time.Duration
	for _, v := range work {
		s := g.apply(b, v)
		lag := max(s.Interval, s.Timeout)
		for _, f := range probe.FatalFaults() {
			o := faultmodel.Predict(f, s.Timeout)
			if r := s.Map.Rule(o.Condition); r.Fatal() {
				within = max(within, lag+o.Took+time.Duration(r.Threshold)*statemap.TickInterval)
			}
		}
	}
	within += statemap.TickInterval // a margin past the promise
	if room := shape.Length - shape.Length/12; within > room {
		return nil, 0, fmt.Errorf("%w: a point fences a fault up to %s after it starts, longer than the %s a %s trace leaves after its first twelfth", ErrTooLong, within, room, shape.Length)
	}
	opt.Within = within
	gen, err := check.NewGeneratorOptions(check.Fatal, shape, b.Map, opt)
	return gen, within, err
}

// nothingFatal says why no fatal trace can be made, in sweep's words; it is
// check.ErrNothingFatal.
type nothingFatal string

func (e nothingFatal) Error() string { return string(e) }
func (e nothingFatal) Unwrap() error { return check.ErrNothingFatal }

// generate makes n traces of g from seed; it returns ctx's error if ctx is done first.
func generate(ctx context.Context, g *check.Generator, seed uint64, n int) ([]*timeline.Timeline, error) {
	out := make([]*timeline.Timeline, n)
	for i := range out {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = g.Trace(check.TraceRand(seed, i))
	}
	return out, nil
}

// fatalStart is when a fatal trace's fault starts: the last fault put on the master's link
// (its benign noise heals before the fatal fault, which lasts to the end).
func fatalStart(tl *timeline.Timeline) time.Duration {
	for i := len(tl.Events) - 1; i >= 0; i-- {
		if ev := tl.Events[i]; ev.Kind == timeline.SetFault && ev.Node == 0 {
			return ev.At
		}
	}
	panic("sweep: a fatal trace with no fault on its master")
}
