package monitor

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/shadow"
)

// Shadows are the candidate statemaps a runtime judges beside its engine (package shadow):
// each runs in an engine of its own, given every probe outcome, tick and action the engine
// gets, with no effect on it. A probe is run once for all: a shadow costs an engine step.
type Shadows struct {
	// Specs are the shadows, in the order given; their names are distinct.
	Specs []shadow.Spec
	// Metrics, when not nil, counts their decisions and divergences.
	Metrics *ShadowMetrics
	// OnDivergence, when not nil, is told each divergence, with its clock time, from the
	// runtime's loop once the instant it was decided at is over: it must not block.
	OnDivergence func(d shadow.Divergence, at time.Time)
	// Sink, when not nil, is also told each decision and divergence of the shadows, as the
	// Tee tells them (a live replay's shadow.Tally, printed once it has ended).
	Sink shadow.Sink
}

// ShadowMetrics counts what the shadows decide. Series:
//
//	failsim_shadow_decisions_total{shadow,kind,node}  counter: the shadow's decisions about a
//	                                                 node's service (kind failed, failover or
//	                                                 no-candidate); a series appears at its first
//	failsim_shadow_divergence_total{shadow}           counter: its divergences from the live
//	                                                 engine (0 for every shadow from the start)
//
// It is safe for concurrent use; the zero value is not usable: call NewShadowMetrics.
type ShadowMetrics struct {
	decisions   *prometheus.CounterVec
	divergences *prometheus.CounterVec
}

// NewShadowMetrics returns the metrics of the named shadows, registered on reg (the runtime's
// Metrics.Registry, so that they are served beside its series).
func NewShadowMetrics(reg prometheus.Registerer, shadows []string) *ShadowMetrics {
	m := &ShadowMetrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "failsim_shadow_decisions_total",
			Help: "A shadow statemap's decisions about a node's service: failed, failover, no-candidate."}, []string{"shadow", "kind", "node"}),
		divergences: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "failsim_shadow_divergence_total",
			Help: "Decisions a shadow statemap made and the live engine did not, or the other way round."}, []string{"shadow"}),
	}
	for _, s := range shadows {
		m.divergences.WithLabelValues(s)
	}
	reg.MustRegister(m.decisions, m.divergences)
	return m
}

// shadowSink tells the runtime's log, the metrics and OnDivergence what the shadows decide.
type shadowSink struct {
	r  *Runtime
	sh *Shadows
}

// Decided implements shadow.Sink.
func (s shadowSink) Decided(i int, d shadow.Decision) {
	if s.sh.Metrics != nil {
		s.sh.Metrics.decisions.WithLabelValues(s.sh.Specs[i].Name, d.Kind.String(), s.r.cfg.Nodes[d.Node].Name).Inc()
	}
	if s.sh.Sink != nil {
		s.sh.Sink.Decided(i, d)
	}
}

// Diverged implements shadow.Sink: one log line (warn) per divergence.
func (s shadowSink) Diverged(d shadow.Divergence) {
	names := s.r.names()
	at := s.r.t0.Add(time.Duration(float64(d.At) / s.r.speed))
	ev := s.r.log.Warn().Str("shadow", d.Shadow).Str("node", names[d.Node]).Str("at", at.Format(time.RFC3339Nano)).
		Str("kind", d.Kind.String()).Str("side", d.Side.String()).Str("cause", d.Cause())
	if d.To >= 0 {
		ev = ev.Str("to", names[d.To])
	}
	ev.Msg(d.Describe(names))
	if s.sh.Metrics != nil {
		s.sh.Metrics.divergences.WithLabelValues(d.Shadow).Inc()
	}
	if s.sh.Sink != nil {
		s.sh.Sink.Diverged(d)
	}
	if s.sh.OnDivergence != nil {
		s.sh.OnDivergence(d, at)
	}
}

// names are the nodes' names, in cluster order.
func (r *Runtime) names() []string {
	out := make([]string, len(r.cfg.Nodes))
	for i, n := range r.cfg.Nodes {
		out[i] = n.Name
	}
	return out
}

// withShadows puts the configured shadows beside core k: the machine the driver runs. Each
// shadow's engine has the runtime's nodes and policy, its group when it runs one, and promotes
// the first eligible replica (fence.FirstEligible): a candidate rule that reads real servers
// is the live engine's alone.
func (r *Runtime) withShadows(k *core.Core) drive.Machine {
	sh := r.cfg.Shadows
	if sh == nil || len(sh.Specs) == 0 {
		return k
	}
	nodes := make([]fence.NodeConfig, len(r.cfg.Nodes))
	for i, n := range r.cfg.Nodes {
		nodes[i] = fence.NodeConfig{Name: n.Name, Role: n.Role}
	}
	cands := make([]shadow.Candidate, len(sh.Specs))
	for i, s := range sh.Specs {
		e := fence.New(fence.Config{Nodes: nodes, Map: s.Map, Policy: r.cfg.Policy})
		cands[i] = shadow.Candidate{Name: s.Name, Machine: core.New(e, r.cfg.Group)}
	}
	r.tee = shadow.NewTee(k, cands, shadowSink{r: r, sh: sh})
	return r.tee
}

// finishShadows tells the divergences of the last instant, once the run is over.
func (r *Runtime) finishShadows() {
	if r.tee != nil {
		r.tee.Finish()
	}
}
