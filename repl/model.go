package repl

import (
	"fmt"
	"math"
	"time"
)

// Model is the replication state of one cluster and the client's view of its workload. Its
// zero value is not usable: call New.
type Model struct {
	cfg   Config
	now   time.Duration // the first instant not yet settled: everything before it is decided
	nodes []node
	hists []history
	app   int     // the writer the application writes to; -1 for none
	wait  []entry // commits waiting for a replica under semisync, oldest first (the application's master's)
	limit int64   // no write from this index on is issued (a summary's drain); MaxInt64 otherwise

	client    client
	committed int64
	losses    []Loss
	fallbacks int
	out       []Decision

	ranking   []Standing // the ranking the candidate rule made last, at rankedAt
	rankedAt  time.Duration
	hasRanked bool
}

// New returns the model of a cluster as cfg describes it at t=0.
func New(cfg Config) *Model {
	m := new(Model)
	m.Reset(cfg)
	return m
}

// Reset makes m what New(cfg) returns, reusing the space m holds: a caller that runs one model
// after another (failsim check, thousands of traces a second) allocates it once. Nothing m
// handed out before (decisions, summaries, ledgers) shares that space.
func (m *Model) Reset(cfg Config) {
	cfg.check()
	old := m.reusable(cfg.Nodes)
	*m = Model{cfg: cfg, app: cfg.Master, limit: math.MaxInt64}
	m.hists = append(old.hists[:0], history{owner: cfg.Master, parent: -1, segs: old.segs, acked: old.acked})
	m.nodes = old.nodes
	m.wait, m.losses, m.client.outages = old.wait, old.losses, old.outages
	for j := range m.nodes {
		if j == cfg.Master {
			m.nodes[j] = node{role: writer, hist: 0, ready: true, semiOn: true, src: -1}
			continue
		}
		m.startReplica(j, 0, 0)
	}
	m.client.runStart = -1
}

// Step tells the model that in happened at time at, which must not be before the time the
// model has settled to. Everything before at is settled first (see Begin); in takes effect at
// at, before the model's own decisions and the writes of that instant.
func (m *Model) Step(at time.Duration, in Input) {
	m.Begin(at)
	switch in := in.(type) {
	case SetLink:
		m.setLink(in)
	case SetLag:
		m.setLag(in)
	case SetApplyLag:
		m.setApplyLag(in)
	case SetStream:
		m.setStream(in)
	case SetReplicator:
		m.setReplicator(in)
	case Promote:
		m.promote(in)
	case Fail:
		m.fail(in)
	case Recover:
		m.recover(in)
	case SetApp:
		m.setAppInput(in)
	case Merge:
		m.merge(in)
	default:
		panic("repl: Step with a nil Input")
	}
}

// Begin settles every instant before at: the model's own decisions and the writes issued,
// under the conditions the inputs made. The model is then at instant at, and inputs at at may
// follow. Time must not go back: at before an instant already closed panics.
func (m *Model) Begin(at time.Duration) {
	if at < m.now {
		panic(fmt.Sprintf("repl: time went backwards: %v after %v was closed", at, m.now-1))
	}
	m.settle(at)
}

// Close closes instant at: after the inputs of the instant, the model's own decisions due at
// it, then the writes issued at it. No input at at may follow; closing it again does nothing.
func (m *Model) Close(at time.Duration) {
	if at == m.now-1 {
		return
	}
	m.Begin(at)
	m.settle(at + 1)
}

// Ready returns the decisions made since the last call, oldest first. They are the caller's.
func (m *Model) Ready() []Decision {
	out := m.out
	m.out = nil
	return out
}

// Next returns the next instant, at or after the model's time, at which the model may decide
// something of its own accord (a promoted master becoming writable, semisync falling back or
// returning) if no input comes first; ok is false when nothing is due. A driver visits it so
// that the decision is told at its instant.
func (m *Model) Next() (at time.Duration, ok bool) {
	at = m.nextOwn(m.now - 1)
	// An input at the model's time may have made a decision due at once (a replica caught up
	// with a stream that had stored the position long ago): it is due now, not then.
	return max(at, m.now), at != never
}

// Now returns the first instant the model has not settled: the instant it is at.
func (m *Model) Now() time.Duration { return m.now }

func (m *Model) emit(d Decision) { m.out = append(m.out, d) }

// checkNode panics on a node index out of range.
func (m *Model) checkNode(j int) *node {
	if j < 0 || j >= len(m.nodes) {
		panic(fmt.Sprintf("repl: node %d of %d", j, len(m.nodes)))
	}
	return &m.nodes[j]
}

// App returns the writer the application writes to, -1 for none.
func (m *Model) App() int { return m.app }
