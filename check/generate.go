package check

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Shape is the cluster and checker every generated trace of a run shares.
type Shape struct {
	Nodes    int           // cluster size, the first node the master; 1 to Family.MaxNodes
	Length   time.Duration // each trace's span of virtual time; > 0
	Interval time.Duration // the checker's interval between probe starts
	Timeout  time.Duration // the checker's budget per probe
}

// DefaultShape is five nodes for one hour under the manager's default checker settings.
func DefaultShape() Shape {
	return Shape{Nodes: 5, Length: time.Hour, Interval: timeline.DefaultInterval, Timeout: timeline.DefaultTimeout}
}

// Generator makes the traces of one family for one statemap. It holds no random state: each
// trace is made from the *rand.Rand it is given, so traces can be made in any order, on any
// goroutine. A Generator is immutable once built and safe to share.
type Generator struct {
	family Family
	shape  Shape
	m      *statemap.Map
	nodes  []fence.NodeConfig
	blips  []blip        // benign: faults that fence, with the longest blip that stays benign
	fatal  []fatalFault  // faults the statemap fences, with how long a fatal trace must run on
	gap    time.Duration // the shortest healthy spell between two episodes on one node
	within time.Duration // detects-death-within's fixed duration; 0 for the statemap's promise
	start  time.Time     // the clock time of t=0 of every trace
	work   *Workload     // every trace's workload, and the replication its family adds; nil for none
	inputs replInputs    // the replication inputs of the traces, when work is not nil
}

type blip struct {
	f   fault.Fault
	max time.Duration
}

type fatalFault struct {
	f    fault.Fault
	need time.Duration // how long after it starts the trace must go on for it to be judged: its deadline
}

// candidates are the faults a trace draws from, besides slowness: every fault kind with a
// representative argument.
var candidates = []fault.Fault{
	{Kind: fault.Refuse}, {Kind: fault.Reset}, {Kind: fault.Close}, {Kind: fault.Freeze},
	{Kind: fault.Blackhole}, {Kind: fault.Unreachable}, {Kind: fault.HostDown}, {Kind: fault.Stall},
	{Kind: fault.Error, Code: 1040}, {Kind: fault.Error, Code: 1045}, {Kind: fault.Error, Code: 1064},
	{Kind: fault.Probe, Condition: "query_exec_timeout"}, {Kind: fault.Probe, Condition: "send_query_timeout"},
}

// ErrNothingFatal is why a statemap cannot make fatal or mixed traces.
var ErrNothingFatal = errors.New("the statemap fences no fault")

// ErrTooManyNodes is why a shape's cluster cannot be generated: more nodes than the family's
// traces may have (Family.MaxNodes).
var ErrTooManyNodes = errors.New("too many nodes")

// NewGenerator prepares the generation of family traces under m. within is the duration
// detects-death-within is checked with, 0 for the statemap's own promise: a fatal trace runs on
// long enough after its fault for either. A fatal fault starts no earlier than the first twelfth
// of the trace (benign noise comes first), so a fault can make a fatal trace when its deadline
// falls within the rest: Length - Length/12. NewGenerator fails when the family cannot be
// generated: a fatal or mixed family under a statemap that fences no fault that soon.
func NewGenerator(family Family, shape Shape, m *statemap.Map, within time.Duration) (*Generator, error) {
	return NewGeneratorOptions(family, shape, m, Options{Within: within})
}

// Options are what NewGeneratorOptions takes besides the family, the shape and the statemap.
// The zero value is NewGenerator's with within 0.
type Options struct {
	// Within is NewGenerator's within: a fatal trace runs on at least this long after its
	// fault starts; 0 for the statemap's own promise.
	Within time.Duration
	// FatalOnly, if not nil, narrows the faults fatal traces (and mixed ones) draw from to those
	// whose probes end in a condition it returns true for. Benign noise is not narrowed.
	FatalOnly func(statemap.Condition) bool
	// Workload, if not nil, gives every trace a workload and the replication its family adds,
	// as Config.Workload does: failsim sweep --workload.
	Workload *Workload
}

// NewGeneratorOptions is NewGenerator with options: failsim sweep draws its fatal traces from
// the conditions it varies alone.
func NewGeneratorOptions(family Family, shape Shape, m *statemap.Map, opt Options) (*Generator, error) {
	if shape.Nodes < 1 {
		return nil, fmt.Errorf("%d nodes: want at least 1", shape.Nodes)
	}
	if err := family.CheckNodes(shape.Nodes); err != nil {
		return nil, fmt.Errorf("%d nodes: %w", shape.Nodes, err)
	}
	within := opt.Within
	g := &Generator{family: family, shape: shape, m: m, within: within, start: time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), work: opt.Workload}
	for i := range shape.Nodes {
		r := fence.Replica
		if i == 0 {
			r = fence.Master
		}
		g.nodes = append(g.nodes, fence.NodeConfig{Name: "db" + strconv.Itoa(i+1), Role: r})
	}
	g.inputs = newReplInputs(shape.Nodes)
	lag := max(shape.Interval, shape.Timeout)
	g.gap = lag + 15*time.Second
	for _, f := range candidates {
		o := faultmodel.Predict(f, shape.Timeout)
		r := m.Rule(o.Condition)
		if !r.Fatal() {
			continue
		}
		// A blip is benign when the bad probes it causes span less than threshold-1 ticks:
		// the first bad probe finishes at least o.Took after it starts, the first ok one within
		// lag after it ends.
		if longest := time.Duration(r.Threshold-1)*statemap.TickInterval - lag + o.Took - time.Second; r.Threshold >= 1 && longest >= time.Second {
			g.blips = append(g.blips, blip{f: f, max: longest})
		}
		need := lag + o.Took + time.Duration(r.Threshold)*statemap.TickInterval
		if within > 0 {
			need = within
		}
		if need <= g.room() && (opt.FatalOnly == nil || opt.FatalOnly(o.Condition)) {
			g.fatal = append(g.fatal, fatalFault{f: f, need: need})
		}
	}
	if family != Benign && len(g.fatal) == 0 {
		where := fmt.Sprintf("%s, the part of a %s trace after its first twelfth, where fatal faults start", g.room(), shape.Length)
		if within > g.room() {
			return nil, fmt.Errorf("no %s trace can be made: detects-death-within %s is longer than %s (%w in time to judge)", family, within, where, ErrNothingFatal)
		}
		return nil, fmt.Errorf("no %s trace can be made: %w within %s", family, ErrNothingFatal, where)
	}
	return g, nil
}

// FatalFaults returns the faults fatal traces draw from, in the generator's fixed order.
func (g *Generator) FatalFaults() []fault.Fault {
	out := make([]fault.Fault, len(g.fatal))
	for i, ff := range g.fatal {
		out[i] = ff.f
	}
	return out
}

// room is how long a fatal fault can last in a trace: from the first twelfth, the earliest
// it starts, to the end.
func (g *Generator) room() time.Duration { return g.shape.Length - g.shape.Length/12 }

// Trace makes one trace from rng. The same rng state gives the same trace.
func (g *Generator) Trace(rng *rand.Rand) *timeline.Timeline {
	var b traceBuf
	return g.traceInto(&b, rng)
}

// traceBuf holds a trace and the scratch space of making one, for reuse by one worker: at
// thousands of traces a second, allocating them anew each time costs more than replaying.
type traceBuf struct {
	tl      timeline.Timeline
	repl    timeline.Replication
	scratch []timeline.Event
	idx     []int32
	keys    []uint64
	merge   []uint64 // sortKeys' scratch
	runs    []int    // sortKeys' runs
}

// traceInto makes the trace of rng in b, reusing its space, and returns it; it is valid until
// the next call with b.
func (g *Generator) traceInto(buf *traceBuf, rng *rand.Rand) *timeline.Timeline {
	buf.tl = timeline.Timeline{
		File:     "generated",
		Family:   g.family.String(),
		Nodes:    g.nodes,
		Interval: g.shape.Interval,
		Timeout:  g.shape.Timeout,
		Start:    g.start,
		End:      g.shape.Length,
		Events:   buf.tl.Events[:0],
	}
	tl := &buf.tl
	b := builder{g: g, rng: rng, tl: tl}
	switch g.family {
	case Benign:
		for i := range g.nodes {
			b.noise(i, 0, g.shape.Length, 3)
		}
	case Fatal:
		ff := g.fatal[rng.IntN(len(g.fatal))]
		lo, hi := g.shape.Length/12, g.shape.Length-ff.need
		at := b.between(lo, max(lo, hi))
		b.noise(0, 0, at-g.gap, 2)
		b.set(at, 0, ff.f)
		for i := 1; i < len(g.nodes); i++ {
			b.noise(i, 0, g.shape.Length, 2)
		}
	case Mixed:
		for i := range g.nodes {
			b.mixed(i)
		}
		b.cluster()
	case Partition:
		tl.Witnesses = witnessNames[:rng.IntN(len(witnessNames)+1)]
		b.partitions()
	}
	tl.Events, buf.scratch = buf.sortEvents(tl.Events)
	if g.work != nil {
		b.replicate(*g.work, &buf.repl)
		tl.Repl = &buf.repl
	}
	return tl
}

// sortEvents orders events by time, keeping the order they were made in among equal times, into
// the scratch slice; it returns the sorted events and the old slice as the next scratch. It
// sorts keys rather than the events themselves: each event's time and index packed into one
// integer (time above, index below: ties go by index, the order they were made in), which
// sorts without a comparison function; a trace whose times or length do not fit the packing
// sorts indices by a comparison instead.
func (buf *traceBuf) sortEvents(evs []timeline.Event) (sorted, scratch []timeline.Event) {
	const indexBits = 20
	packs := len(evs) < 1<<indexBits
	for i := range evs {
		if at := evs[i].At; at < 0 || at >= 1<<(64-indexBits) {
			packs = false
			break
		}
	}
	out := buf.scratch[:0]
	if packs {
		keys := buf.keys[:0]
		for i := range evs {
			keys = append(keys, uint64(evs[i].At)<<indexBits|uint64(i))
		}
		keys = buf.sortKeys(keys)
		buf.keys = keys
		for _, k := range keys {
			out = append(out, evs[k&(1<<indexBits-1)])
		}
		return out, evs
	}
	idx := buf.idx[:0]
	for i := range evs {
		idx = append(idx, int32(i))
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp.Compare(evs[a].At, evs[b].At); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	buf.idx = idx
	for _, j := range idx {
		out = append(out, evs[j])
	}
	return out, evs
}

// sortKeys sorts keys, which are distinct, and returns them sorted (in keys' space or the
// scratch's): a merge of the runs they are already sorted in. A trace's events are made node by
// node, each node's in time order, so its keys hold a few long runs, which merge in a few
// passes where a sort from scratch compares far more.
func (buf *traceBuf) sortKeys(keys []uint64) []uint64 {
	runs := append(buf.runs[:0], 0) // where each run starts, then len(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] < keys[i-1] {
			runs = append(runs, i)
		}
	}
	runs = append(runs, len(keys))
	buf.runs = runs
	if len(runs) > len(keys)/4+2 {
		slices.Sort(keys) // hardly sorted: merging buys nothing
		return keys
	}
	if cap(buf.merge) < len(keys) {
		buf.merge = make([]uint64, len(keys))
	}
	a, b := keys, buf.merge[:len(keys)]
	swapped := false
	for m := len(runs) - 1; m > 1; m = (m + 1) / 2 { // m runs, bounded by runs[0..m]
		for p := 0; p < m; p += 2 {
			lo, mid, hi := runs[p], runs[min(p+1, m)], runs[min(p+2, m)]
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				x, y := a[i], a[j]
				left := 0 // 1 when x goes first: written without a branch, which the merge's order would mispredict half the time
				if x < y {
					left = 1
				}
				b[k] = min(x, y)
				i, j, k = i+left, j+1-left, k+1
			}
			k += copy(b[k:], a[i:mid])
			copy(b[k:], a[j:hi])
			runs[p/2] = lo
		}
		runs[(m+1)/2] = len(keys)
		a, b = b, a
		swapped = !swapped
	}
	if swapped {
		buf.merge = keys // the scratch for next time
	}
	return a
}

type builder struct {
	g   *Generator
	rng *rand.Rand
	tl  *timeline.Timeline
}

// between returns a whole number of seconds in [lo, hi].
func (b *builder) between(lo, hi time.Duration) time.Duration {
	lo, hi = lo.Truncate(time.Second), hi.Truncate(time.Second)
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(b.rng.Int64N(int64((hi-lo)/time.Second)+1))*time.Second
}

func (b *builder) set(at time.Duration, node int, f fault.Fault) {
	if at < b.tl.End {
		b.tl.Events = append(b.tl.Events, timeline.Event{At: at, Kind: timeline.SetFault, Node: node, Fault: f})
	}
}

func (b *builder) add(at time.Duration, kind timeline.EventKind, node int, p fence.Policy) {
	if at < b.tl.End {
		b.tl.Events = append(b.tl.Events, timeline.Event{At: at, Kind: kind, Node: node, Policy: p})
	}
}

// noise lays benign episodes on node in [from, to): about per of them an hour, each followed
// by a healthy spell long enough for an ok probe to delete its alarms.
func (b *builder) noise(node int, from, to time.Duration, per int) {
	mean := b.g.shape.Length / time.Duration(per+1)
	t := from + b.between(0, mean)
	for t < to {
		end := b.episode(node, t, to)
		t = end + b.g.gap + b.between(0, mean)
	}
}

// episode lays one benign episode on node from t, ending (healed) no later than limit, and
// returns when it ends.
func (b *builder) episode(node int, t, limit time.Duration) time.Duration {
	s := b.g.shape
	span := func(lo, hi time.Duration) time.Duration {
		return t + b.between(lo, max(lo, min(hi, limit-t)))
	}
	var end time.Duration
	switch k := b.rng.IntN(8); k {
	case 0: // slow below the budget
		if s.Timeout < 2*time.Second {
			b.set(t, node, fault.Fault{Kind: fault.Stall})
		} else {
			b.set(t, node, fault.Fault{Kind: fault.Slow, Delay: b.between(time.Second, s.Timeout-time.Second)})
		}
		end = span(30*time.Second, 20*time.Minute)
	case 1: // a query stall: connect and login work, queries hang
		b.set(t, node, fault.Fault{Kind: fault.Stall})
		end = span(10*time.Second, 20*time.Minute)
	case 2: // query timeouts of another phase
		b.set(t, node, candidates[11+b.rng.IntN(2)])
		end = span(10*time.Second, 10*time.Minute)
	case 3: // a lock-contention burst: replies held around the budget
		at := t
		for n := 1 + b.rng.IntN(4); n > 0 && at < limit; n-- {
			b.set(at, node, fault.Fault{Kind: fault.Slow, Delay: b.between(max(s.Timeout/2, time.Second), 2*s.Timeout)})
			at += b.between(5*time.Second, 40*time.Second)
		}
		end = at
	case 4: // too many connections, wrong credentials
		b.set(t, node, candidates[8+b.rng.IntN(2)])
		end = span(5*time.Second, 10*time.Minute)
	case 5: // a flapping stall: brief healthy moments
		at := t
		for n := 2 + b.rng.IntN(6); n > 0; n-- {
			b.set(at, node, fault.Fault{Kind: fault.Stall})
			at += b.between(20*time.Second, 4*time.Minute)
			if n == 1 || at >= limit {
				break
			}
			b.set(at, node, fault.Fault{}) // a brief healthy moment
			at += b.between(time.Second, 8*time.Second)
			if at >= limit {
				break
			}
		}
		end = at
	default: // a blip of a fault the statemap fences, shorter than its threshold tolerates
		if len(b.g.blips) == 0 {
			b.set(t, node, fault.Fault{Kind: fault.Stall})
			end = span(10*time.Second, 5*time.Minute)
			break
		}
		bl := b.g.blips[b.rng.IntN(len(b.g.blips))]
		b.set(t, node, bl.f)
		end = t + b.between(time.Second, bl.max)
	}
	end = min(end, limit)
	b.set(end, node, fault.Fault{})
	return end
}

// mixed lays benign episodes and fatal faults on node, healing each after a while.
func (b *builder) mixed(node int) {
	L := b.g.shape.Length
	t := b.between(0, L/3)
	for t < L {
		if b.rng.IntN(3) == 0 {
			ff := b.g.fatal[b.rng.IntN(len(b.g.fatal))]
			b.set(t, node, ff.f)
			t += b.between(10*time.Second, 20*time.Minute)
			b.set(t, node, fault.Fault{})
		} else {
			t = b.episode(node, t, L)
		}
		t += b.between(b.g.gap, L/3)
	}
}

// cluster lays policy changes, manager outages and operator recovers.
func (b *builder) cluster() {
	L := b.g.shape.Length
	for range b.rng.IntN(4) {
		at := b.between(0, L)
		b.add(at, timeline.SetPolicy, -1, fence.Policy(b.rng.IntN(3)))
		if b.rng.IntN(2) == 0 {
			b.add(at+b.between(30*time.Second, 15*time.Minute), timeline.SetPolicy, -1, fence.Automatic)
		}
	}
	for range b.rng.IntN(4) {
		node := b.rng.IntN(len(b.g.nodes))
		at := b.between(0, L)
		b.add(at, timeline.ManagerDown, node, 0)
		b.add(at+b.between(10*time.Second, 15*time.Minute), timeline.ManagerUp, node, 0)
	}
	for range b.rng.IntN(3) {
		b.add(b.between(0, L), timeline.Recover, b.rng.IntN(len(b.g.nodes)), 0)
	}
}

// CheckNodes says what is wrong with traces of family f having n nodes: more than MaxNodes is
// an error that wraps ErrTooManyNodes and says where the limit comes from.
func (f Family) CheckNodes(n int) error {
	if n <= f.MaxNodes() {
		return nil
	}
	return tooManyNodes{f}
}

// tooManyNodes is CheckNodes' error.
type tooManyNodes struct{ f Family }

func (e tooManyNodes) Error() string {
	why := fmt.Sprintf("a timeline's cluster holds at most %d members", timeline.MaxMembers)
	if e.f == Partition {
		why += fmt.Sprintf(", and the family adds up to %d witnesses", len(witnessNames))
	}
	return fmt.Sprintf("a %s trace has at most %d nodes: %s", e.f, e.f.MaxNodes(), why)
}

func (e tooManyNodes) Unwrap() error { return ErrTooManyNodes }

// witnessNames are the names of a partition trace's witnesses, the first 0-2 of them.
var witnessNames = []string{"w1", "w2"}

// partitions lays the episodes of a partition trace, one after another with healthy spells
// between: partitions that isolate the master, a replica or a witness, or split a minority
// from a majority, each healed after a while; flapping partitions that heal within seconds;
// host crashes and restarts; manager outages.
func (b *builder) partitions() {
	L := b.g.shape.Length
	n := len(b.g.nodes)
	members := n + len(b.tl.Witnesses)
	t := b.between(0, L/6)
	for t < L {
		seg := func(alone ...int) []int {
			s := make([]int, members)
			for _, m := range alone {
				s[m] = 1
			}
			return s
		}
		switch k := b.rng.IntN(7); {
		case k == 0: // isolate the master
			t = b.split(t, seg(0))
		case k == 1 && n > 1: // isolate a replica
			t = b.split(t, seg(1+b.rng.IntN(n-1)))
		case k == 2: // a minority and a majority, any members
			var alone []int
			for m := range members {
				if b.rng.IntN(3) == 0 {
					alone = append(alone, m)
				}
			}
			t = b.split(t, seg(alone...))
		case k == 3 && members > n: // isolate a witness
			t = b.split(t, seg(n+b.rng.IntN(members-n)))
		case k == 4: // a flapping switch: short cuts of the master's link
			for range 2 + b.rng.IntN(4) {
				b.net(t, seg(0))
				t += b.between(time.Second, 15*time.Second)
				b.net(t, nil)
				t += b.between(time.Second, 30*time.Second)
			}
		case k == 5: // a host crashes and comes back
			m := b.rng.IntN(members)
			b.add(t, timeline.HostDown, m, 0)
			t += b.between(10*time.Second, 10*time.Minute)
			b.add(t, timeline.HostUp, m, 0)
		default: // a manager outage
			m := b.rng.IntN(members)
			b.add(t, timeline.ManagerDown, m, 0)
			t += b.between(10*time.Second, 10*time.Minute)
			b.add(t, timeline.ManagerUp, m, 0)
		}
		t += b.between(b.g.gap, L/4)
	}
}

// split partitions the network as seg from t, heals it a while later, and returns when.
func (b *builder) split(t time.Duration, seg []int) time.Duration {
	b.net(t, seg)
	t += b.between(10*time.Second, 15*time.Minute)
	b.net(t, nil)
	return t
}

// net adds a partition event: seg, or nil for a heal.
func (b *builder) net(at time.Duration, seg []int) {
	if at < b.tl.End {
		b.tl.Events = append(b.tl.Events, timeline.Event{At: at, Kind: timeline.Partition, Node: -1, Segments: seg})
	}
}

// propertyTrace is what the properties know of every trace of g: traces differ in their
// events alone (and a partition trace in how many of witnessNames it has).
func (g *Generator) propertyTrace() property.Trace {
	tl := &timeline.Timeline{Nodes: g.nodes, Start: g.start, Interval: g.shape.Interval, Timeout: g.shape.Timeout,
		Family: g.family.String()}
	if g.family == Partition {
		tl.Witnesses = witnessNames // a trace's witnesses are the first of these: its names are theirs
	}
	return expect.Trace(tl, g.m)
}
