package check

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Config is one run of failsim check.
type Config struct {
	Map        *statemap.Map
	Family     Family
	Properties []property.Spec // nil: every property that applies to Family
	Shape      Shape
	Traces     int // how many traces to generate; >= 1
	// First is the index of the first trace: the run replays traces First to First+Traces-1,
	// one shard's contiguous block of a larger run (0 for a whole run). >= 0.
	First   int
	Seed    uint64 // trace i is generated from a source seeded with (Seed, i)
	Workers int    // goroutines replaying traces; <= 0 means GOMAXPROCS
	// Workload, when not nil, gives every trace a workload and the replication its family adds
	// (--workload); a family's defaults then add workloadDefaults.
	Workload *Workload
	// Progress, if not nil, is called from the workers, never concurrently, with the number of
	// traces replayed so far.
	Progress func(done int)
}

// Result is what a run found. Every trace is replayed and judged by every property: a run
// never stops early, so Violated counts are complete and add up over shards.
type Result struct {
	Properties []property.Spec // the properties checked, in order
	Violated   []int           // per property, in the order of Properties: the traces that violated it
	Violations []Violation     // one per violated property, in the order of Properties
	First      int             // the index of the first trace replayed: Config.First
	Traces     int             // the traces replayed: Config.Traces
}

// Held reports whether every property held on every trace.
func (r *Result) Held() bool { return len(r.Violations) == 0 }

// Violation is the first trace, by index, that violates one property, and its shrunk form.
type Violation struct {
	Property  property.Spec
	Trace     int                // index of the first violating trace
	Original  *timeline.Timeline // the generated trace
	Why       string             // the property's verdict on it
	Shrunk    *timeline.Timeline // the minimal trace that still violates the property
	ShrunkWhy string             // the property's verdict on the shrunk trace
	Replays   int                // replays the shrinking took
}

// ErrNoTraces is returned by Run when asked for no trace (Config.Traces < 1): nothing checked
// is nothing proved.
var ErrNoTraces = errors.New("no trace to check")

// ErrNoWorkload is why a property of the workload's writes cannot be checked: the run has no
// workload (Config.Workload).
var ErrNoWorkload = errors.New("the traces have no workload")

const chunk = 64

// Run generates traces cfg.First to cfg.First+cfg.Traces-1, replays each under cfg.Map with the
// properties watching, counts the traces that violate each property, and shrinks the first
// violating trace of each violated property. Its result depends on the configuration alone, not
// on Workers or scheduling. It never stops early (a count of violations is only complete when
// every trace was judged), and returns ctx's error if ctx is done first: it then stops within a
// few traces, or within a replay of its shrinking.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	specs, g, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	var (
		next  atomic.Int64 // the next chunk's first trace
		mu    sync.Mutex   // guards first, count, done and Progress
		first = make([]int, len(specs))
		count = make([]int, len(specs))
		done  int
		wg    sync.WaitGroup
	)
	for k := range first {
		first[k] = -1
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newReplayer(g, cfg.Map, specs)
			for {
				if ctx.Err() != nil {
					return
				}
				start := int(next.Add(chunk)) - chunk // relative to cfg.First
				if start >= cfg.Traces {
					return
				}
				end := min(start+chunk, cfg.Traces)
				var found []int // pairs: property, trace
				for i := cfg.First + start; i < cfg.First+end; i++ {
					if i%8 == 0 && ctx.Err() != nil {
						return // a chunk of the largest traces takes a second: stop within it
					}
					for _, k := range r.run(cfg.Seed, i) {
						found = append(found, k, i)
					}
				}
				mu.Lock()
				for j := 0; j < len(found); j += 2 {
					k, i := found[j], found[j+1]
					if first[k] < 0 || i < first[k] {
						first[k] = i
					}
					count[k]++
				}
				done += end - start
				if cfg.Progress != nil {
					cfg.Progress(done)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Properties: specs, Violated: count, First: cfg.First, Traces: cfg.Traces}
	for k, i := range first {
		if i < 0 {
			continue
		}
		v, err := shrinkViolation(ctx, g, cfg, specs[k], i)
		if err != nil {
			return nil, err
		}
		res.Violations = append(res.Violations, v)
	}
	return res, nil
}

// Validate reports what is wrong with cfg before a run: no traces, properties that do not
// build, or a family the statemap cannot generate.
func (cfg Config) Validate() error {
	_, _, err := cfg.prepare()
	return err
}

// prepare returns the properties to check and the trace generator.
func (cfg Config) prepare() ([]property.Spec, *Generator, error) {
	if cfg.Traces < 1 {
		return nil, nil, ErrNoTraces
	}
	if cfg.First < 0 {
		return nil, nil, fmt.Errorf("first trace %d: want 0 or more", cfg.First)
	}
	specs := cfg.Properties
	if len(specs) == 0 {
		specs = defaults(cfg.Family, cfg.Workload != nil)
	}
	if _, err := property.NewSet(property.Trace{}, specs...); err != nil {
		return nil, nil, err
	}
	for _, s := range specs {
		if property.NeedsWorkload(s.Name) && cfg.Workload == nil {
			return nil, nil, fmt.Errorf("property %s judges a workload's writes: %w", s.Name, ErrNoWorkload)
		}
	}
	g, err := NewGenerator(cfg.Family, cfg.Shape, cfg.Map, fixedWithin(specs))
	if err != nil {
		return nil, nil, err
	}
	g.work = cfg.Workload
	return specs, g, nil
}

// fixedWithin returns the longest duration detects-death-within is checked with, 0 for the
// statemap's promise.
func fixedWithin(specs []property.Spec) (d time.Duration) {
	for _, s := range specs {
		d = max(d, s.Within())
	}
	return d
}

// TraceRand returns the random source trace i of a run with seed is generated from.
func TraceRand(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)))
}

// replayer replays traces with a fresh set of property observers each time.
type replayer struct {
	g     *Generator
	m     *statemap.Map
	specs []property.Spec
	trace property.Trace // every trace of g is the same to a property
	hit   []int
	buf   traceBuf
	sim   sim.Replayer
	set   *property.Set // the properties, renewed for each trace; nil before the first
	pcg   rand.PCG      // the source of the trace replayed, seeded anew for each (TraceRand)
	rng   *rand.Rand    // over pcg
}

func newReplayer(g *Generator, m *statemap.Map, specs []property.Spec) *replayer {
	r := &replayer{g: g, m: m, specs: specs, trace: g.propertyTrace()}
	r.rng = rand.New(&r.pcg)
	return r
}

// run replays trace i of seed and returns the indexes of the properties it violates.
func (r *replayer) run(seed uint64, i int) []int {
	r.pcg.Seed(seed, uint64(i)) // r.rng is TraceRand(seed, i)
	tl := r.g.traceInto(&r.buf, r.rng)
	if r.set == nil {
		set, err := property.NewSet(r.trace, r.specs...)
		if err != nil {
			panic("check: the properties checked at start no longer build: " + err.Error())
		}
		r.set = set
		r.sim.Sparse = set.Sparse() // the same for every trace: the properties are
	} else {
		r.set.Renew()
	}
	set := r.set
	r.sim.Replay(tl, r.m, set)
	r.hit = r.hit[:0]
	for k := range r.specs {
		if bad, _ := set.Violated(k); bad {
			r.hit = append(r.hit, k)
		}
	}
	return r.hit
}
