package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/shadow"
)

// watchShadowFlags are failsim watch's flags for shadows.
type watchShadowFlags struct {
	shadows      shadowFlags
	onDivergence string
	timeout      time.Duration
}

// shadowWatchVars registers watch's --shadow, --on-divergence and --on-divergence-timeout.
func shadowWatchVars(c *cobra.Command, o *watchShadowFlags) {
	shadowVar(c, &o.shadows, "judge a candidate statemap override `NAME=FILE` beside the live one on the same probes, as shadow NAME (repeatable; docs/live.md, \"Shadows\"): each divergence is a warning in the log, counted in the metrics")
	f := c.Flags()
	f.StringVar(&o.onDivergence, "on-divergence", "", "run `CMD` with sh -c at each divergence of a shadow (environment: FAILSIM_SHADOW, FAILSIM_EVENT, FAILSIM_SIDE, FAILSIM_NODE, FAILSIM_TO, FAILSIM_CONDITION, FAILSIM_CAUSE, FAILSIM_TIME)")
	f.DurationVar(&o.timeout, "on-divergence-timeout", defaultHookTimeout, "kill an --on-divergence command (and its process group) still running after this `DURATION`, with a warning")
}

// watchShadows reads the shadows of o and returns them for the runtime, their metrics on
// metrics' registry, and the hook that waits for the --on-divergence commands still running;
// nil shadows without --shadow.
func watchShadows(ctx context.Context, o *watchShadowFlags, metrics *monitor.Metrics, names []string, stderr io.Writer, log zerolog.Logger) (*monitor.Shadows, *divergenceHook, error) {
	hook := &divergenceHook{hookCmd: hookCmd{flag: "--on-divergence", cmd: o.onDivergence, timeout: o.timeout, stderr: stderr}, names: names, log: log}
	if o.timeout <= 0 {
		return nil, hook, usageErr(fmt.Errorf("--on-divergence-timeout %v: want a positive duration", o.timeout), "")
	}
	if len(o.shadows) == 0 {
		if o.onDivergence != "" {
			return nil, hook, usageErr(fmt.Errorf("--on-divergence needs a --shadow"), "--shadow aggressive=conf/examples/aggressive.properties")
		}
		return nil, hook, nil
	}
	specs, err := loadShadows(ctx, o.shadows)
	if err != nil {
		return nil, hook, err
	}
	sn := make([]string, len(specs))
	for i, s := range specs {
		sn[i] = s.Name
		log.Info().Str("shadow", s.Name).Str("statemap", s.File).Msg("shadow")
	}
	return &monitor.Shadows{Specs: specs, Metrics: monitor.NewShadowMetrics(metrics.Registry(), sn), OnDivergence: hook.diverged}, hook, nil
}

// divergenceHook runs the --on-divergence command at each divergence, in the background, as
// failoverHook runs --on-failover's: sh -c in a process group of its own, killed with it after
// timeout.
type divergenceHook struct {
	hookCmd
	names []string // the nodes' names, in cluster order
	log   zerolog.Logger
}

// diverged starts the command for d, decided at clock time at (monitor.Shadows.OnDivergence).
func (h *divergenceHook) diverged(d shadow.Divergence, at time.Time) {
	if h.cmd == "" {
		return
	}
	to := ""
	if d.To >= 0 {
		to = h.names[d.To]
	}
	h.run(h.log.With().Str("shadow", d.Shadow).Logger(),
		"FAILSIM_SHADOW="+d.Shadow,
		"FAILSIM_EVENT="+d.Kind.String(),
		"FAILSIM_SIDE="+d.Side.String(),
		"FAILSIM_NODE="+h.names[d.Node],
		"FAILSIM_TO="+to,
		"FAILSIM_CONDITION="+d.Condition.String(),
		"FAILSIM_CAUSE="+d.Cause(),
		"FAILSIM_TIME="+at.Format(time.RFC3339Nano),
	)
}
