package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/monitor/livereplay"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// replayFlags are failsim replay's flags.
type replayFlags struct {
	statemap, format, logLevel string
	report                     string
	shadows                    shadowFlags
	live                       bool
	mysql                      []string
	speed                      float64
	// A live replay with a workload: the other users, the replication links' proxy.
	admin, writer, replUser, links, tokenFile string
	manager                                   managerFlags
}

func (m *Main) replayCmd() *cobra.Command {
	var o replayFlags
	c := &cobra.Command{
		Use:   "replay",
		Short: "replay an incident timeline in virtual time and judge its expectations",
		Long: `Replay an incident timeline in virtual time: print every change the engine makes, the
verdict (failover or not, and why) and each expectation. FILE "-" reads the timeline from
standard input. Exit 0 when every expectation holds, 1 when one fails, 2 for bad input.
With --shadow NAME=FILE (repeatable), candidate statemaps are judged beside it on the same
probes, and each one's divergences are printed after the verdict (in JSON, one object after
the summary); a divergence is no failed expectation.

FILE may be a directory: a recording of failsim watch --record, its files joined into one run
(docs/live.md).

With --live, play the timeline's faults through one proxy per node in front of the real server
of --mysql (without --mysql, the built-in MySQL-protocol server, failsim-mysqld, a child
process), --speed times faster, and
judge the live decisions against the simulated ones.
The DSN may leave its password out: failsim then reads it from the environment variable
FAILSIM_PASSWORD. A password in a DSN on the command line is visible to every local user in
/proc.

A timeline with a workload plays it on real replicated servers, at speed 1 (the write rate is
never scaled): --mysql NODE=DSN for each node (the probe user; its password from
FAILSIM_PASSWORD_NODE, else FAILSIM_PASSWORD), --admin USER (promotions, STOP/START SLAVE,
MASTER_DELAY; FAILSIM_ADMIN_PASSWORD) and --writer USER (the writes; FAILSIM_WRITER_PASSWORD)
on the same servers, and for link and lag statements --links URL, the control API of the
failsim proxy that carries each replica's stream as a node REPLICA<-SOURCE (its token from
--control-token-file or FAILSIM_CONTROL_TOKEN). A failover promotes for real and repoints the
other replicas (as --repl-user USER, FAILSIM_REPL_PASSWORD; without it each keeps its own
replication user). It prints the client's view, simulated against live, beside the decisions.

With --manager orchestrator (or a timeline's "manager orchestrator" statement), replay the
timeline under Orchestrator's rules instead, in virtual time, as text: its reads of each
instance, the replicas' I/O threads, its failure analysis codes and its recoveries, with the
settings of --manager-config FILE (an orchestrator.conf.json; default Orchestrator's own,
which recover no master). A key failsim does not model is named on stderr and left out.
--managers tungsten,orchestrator replays it under each in turn, each headed by its name and
settings; the expectations are judged under Tungsten's rules.`,
		Annotations: map[string]string{argsAnnotation: "FILE"},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(fmt.Errorf("replay takes one timeline file, got %d arguments", len(args)), "failsim replay testdata/incidents/ebs-stall.timeline")
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return []cobra.Completion{"timeline"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(c *cobra.Command, args []string) error {
			return m.runReplay(c.Context(), c, &o, args[0])
		},
	}
	statemapVar(c, &o.statemap, "statemap override `FILE` (wins over the timeline's statemap statement; '' for the shipped defaults alone)")
	formatVar(c, &o.format)
	logLevelVar(c, &o.logLevel)
	managerVars(c, &o.manager)
	f := c.Flags()
	f.StringVar(&o.report, "report", "", "also write the run's HTML report to `FILE` (failsim report)")
	shadowVar(c, &o.shadows, "judge a candidate statemap override `NAME=FILE` beside the replay's on the same probes, as shadow NAME (repeatable): its divergences are printed after the verdict")
	f.BoolVar(&o.live, "live", false, "replay live through one proxy per node in front of --mysql, and compare with the simulator")
	f.StringArrayVar(&o.mysql, "mysql", nil, "with --live: the real server's `DSN`, e.g. 'probe@tcp(127.0.0.1:3306)/', its password from FAILSIM_PASSWORD when it has none; without it, the built-in server (failsim-mysqld) on a free loopback port; with a workload, NODE=DSN once per node")
	f.Float64Var(&o.speed, "speed", 10, "with --live: run `N` times faster than the timeline (with a workload: 1, the only speed it takes)")
	f.StringVar(&o.admin, "admin", "", "with --live and a workload: the promotion `USER` on every node's server, its password from "+adminPasswordEnv)
	f.StringVar(&o.writer, "writer", "", "with --live and a workload: the `USER` that writes the ledger on every node's server, its password from "+writerPasswordEnv)
	f.StringVar(&o.replUser, "repl-user", "", "with --live and a workload: the replication `USER` a repointed replica streams as, its password from "+replPasswordEnv+" (default: each replica keeps its own)")
	f.StringVar(&o.links, "links", "", "with --live and a workload: the control API `URL` of the proxy that carries each replica's stream as a node REPLICA<-SOURCE")
	f.StringVar(&o.tokenFile, "control-token-file", "", "with --links: "+tokenFileUsage+"; default "+tokenEnv)
	return c
}

func (m *Main) runReplay(ctx context.Context, c *cobra.Command, o *replayFlags, path string) error {
	log, err := m.newLogger(o.logLevel)
	if err != nil {
		return err
	}
	f, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	if o.live && (math.IsNaN(o.speed) || math.IsInf(o.speed, 0)) {
		// runReplayLive refuses a factor <= 0; NaN and infinity pass that test.
		return usageErr(fmt.Errorf("--speed %v: want a positive factor such as 10", o.speed), "")
	}
	if !o.live {
		for _, name := range []string{"mysql", "speed", "admin", "writer", "repl-user", "links", "control-token-file"} {
			if c.Flags().Changed(name) {
				return usageErr(fmt.Errorf("--%s needs --live", name), liveHint(c))
			}
		}
	}
	if len(o.shadows) > 0 && o.report != "" {
		return usageErr(errors.New("--shadow does not go with --report"), "failsim replay --shadow NAME=FILE TIMELINE")
	}
	log.Debug().Str("timeline", path).Msg("reading")
	tl, sm, err := m.loadTimeline(ctx, path, o.statemap, c.Flags().Changed("statemap"))
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, "replay")
		}
		return usageErr(err, "")
	}
	if c.Flags().Changed("managers") {
		return m.runReplaySideBySide(ctx, c, o, tl, sm)
	}
	switch mgr, err := o.manager.manager(c, tl); {
	case err != nil:
		return err
	case mgr == "orchestrator":
		return m.runReplayOrchestrator(ctx, c, o, tl)
	}
	if o.live {
		srv, err := liveServers(o.mysql, tl)
		if werr := livereplay.WireOnly(tl); werr != nil {
			err = usageErr(werr, wireOnlyHint)
		}
		switch {
		case err != nil:
		case srv.perNode != nil && len(o.shadows) > 0:
			err = usageErr(errors.New("--shadow does not go with a live replay with a workload"), "replay it without --live, or without --shadow")
		case srv.perNode != nil:
			err = m.runReplayLiveRepl(ctx, c, o, tl, sm, srv.perNode, f, log)
		default:
			var specs []shadow.Spec
			if specs, err = loadShadows(ctx, o.shadows); err == nil {
				err = liveReplOnly(c, tl)
			}
			if err == nil {
				err = m.runReplayLive(ctx, path, tl, sm, withPassword(srv.single, passwordEnv), o.speed, f, log, o.report, specs...)
			}
		}
		if err != nil && ctx.Err() != nil {
			return interrupted(ctx, "live replay")
		}
		return err
	}
	log.Debug().Str("timeline", tl.File).Int("events", len(tl.Events)).Msg("replaying")
	if o.report != "" {
		return m.runReplayReport(ctx, f, tl, sm, o.report, path, o.statemap)
	}
	var results []expect.Result
	if len(o.shadows) > 0 {
		results, err = m.runReplayShadows(ctx, f, tl, sm, o.shadows)
	} else {
		results, err = sim.Run(ctx, m.Stdout, f, tl, sm)
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, "replay")
		}
		return err
	}
	for _, r := range results {
		if !r.Held {
			return failedErr()
		}
	}
	return nil
}

// liveHint shows the command line of a live replay with the flags given, the DSN left out.
func liveHint(c *cobra.Command) string {
	words := []string{"failsim replay --live --mysql DSN"}
	if f := c.Flags().Lookup("speed"); f.Changed {
		words = append(words, "--speed "+f.Value.String())
	}
	return strings.Join(append(words, "FILE"), " ")
}

// loadTimeline reads the timeline at path and its effective statemap: --statemap's file
// (smFlag; set says the flag was given); with an empty --statemap the shipped defaults alone,
// the timeline's statemap statement unread, as an empty name means in statemap diff; without
// --statemap the statement's file, or the defaults.
func (m *Main) loadTimeline(ctx context.Context, path, smFlag string, set bool) (*timeline.Timeline, *statemap.Map, error) {
	if isRecording(path) {
		return loadRecording(ctx, path, smFlag, set)
	}
	if set && smFlag == "" {
		tl, err := timeline.ReadContext(ctx, path, m.Stdin)
		if err != nil {
			return nil, nil, err
		}
		return tl, statemap.Default(), nil
	}
	return timeline.LoadContext(ctx, path, m.Stdin, smFlag)
}
