package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/internal/mysqld"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/monitor/livereplay"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// wireOnlyHint is the hint under livereplay.WireOnly's refusal.
const wireOnlyHint = "replay it without --live, or use a wire fault (failsim faults lists them)"

// runReplayLive plays a parsed incident live: one proxy per node in front of the real server
// at dsn, the faults on the proxies at the timeline's times divided by speed, the real checker
// probing through them. With no dsn the server is the built-in one (failsim-mysqld, a child
// process serving go-mysql-server on a free port of 127.0.0.1), started here and stopped when
// the replay ends. It prints the live events
// as they happen, then the simulated and the live decisions side by side and the verdict:
// agree (exit 0) or differ (exit 1).
//
// With shadows (--shadow), they are judged beside the live engine on the live probes, and
// their divergences are printed last (replay_shadow.go).
func (m *Main) runReplayLive(ctx context.Context, path string, tl *timeline.Timeline, sm *statemap.Map, dsn string, speed float64, f report.Format, log zerolog.Logger, reportPath string, shadows ...shadow.Spec) error {
	if speed <= 0 {
		return usageErr(fmt.Errorf("--speed %v: want a positive factor such as 10", speed), "")
	}
	if err := livereplay.CheckSpeed(tl, speed); err != nil {
		return usageErr(fmt.Errorf("--%w", err), `a faster replay needs a longer probe budget: the timeline's "checker timeout=DUR"`)
	}
	if dsn != "" {
		if _, err := monitor.ProxyDSN(dsn); err != nil {
			return usageErr(fmt.Errorf("--mysql: %w", err), dsnHint)
		}
	}
	if err := livereplay.WireOnly(tl); err != nil {
		return usageErr(err, wireOnlyHint)
	}
	against := ""
	if dsn == "" {
		srv, err := mysqld.Start(ctx, log)
		if nf := (*mysqld.NotFoundError)(nil); errors.As(err, &nf) {
			return usageErr(fmt.Errorf("no --mysql: %w", err), nf.Hint)
		}
		if err != nil {
			return &exitError{code: 1, err: fmt.Errorf("no --mysql: start the built-in server: %w", err)}
		}
		defer func() {
			if err := srv.Close(); err != nil {
				log.Warn().Err(err).Msg("stop the built-in server")
			}
		}()
		log.Info().Str("addr", srv.Addr).Str("program", srv.Path).Msg("no --mysql: the proxies forward to the built-in server (go-mysql-server)")
		dsn, against = srv.DSN(""), " against the built-in server"
	}
	// One probe straight to the server first: a replay whose every probe fails at login says
	// nothing about the faults, and takes minutes to say it.
	checker, err := monitor.NewChecker(monitor.CheckerConfig{DSN: dsn, Budget: tl.Timeout})
	if err != nil {
		return usageErr(fmt.Errorf("--mysql: %w", err), "")
	}
	if r := checker.Probe(ctx); r.Condition != statemap.OK {
		if against != "" {
			return &exitError{code: 1, err: fmt.Errorf("the built-in server at %s failed a probe with no fault: %s: %v", checker.Addr(), r.Condition, r.Err)}
		}
		hint := "the live replay needs a running server that the probe user can log in to and query"
		if r.Condition == statemap.WrongCredentials {
			hint = "check the user and password; MariaDB matches an anonymous ''@'localhost' user before 'probe'@'%': create 'probe'@'127.0.0.1' or drop the anonymous users"
		}
		return usageErr(fmt.Errorf("--mysql: a probe of %s with no fault ended in %s: %v", checker.Addr(), r.Condition, r.Err), hint)
	}
	simulated := simulate(tl, sm)
	xs := livereplay.NewLiveExpectations(tl, sm)
	out := newLivePrinter(m.Stdout, f, tl.Start, tl.Names())
	if f == report.Text {
		fmt.Fprintf(m.Stdout, "live replay of %s at %gx%s: %s of timeline in %s\n", tl.File, speed, against, tl.End, time.Duration(float64(tl.End)/speed).Round(time.Second))
	}
	lcfg := livereplay.LiveConfig{Timeline: tl, Map: sm, DSN: dsn, Speed: speed, Log: log, Observers: []drive.Observer{out, xs.Observer()}}
	tally := liveShadows(&lcfg, shadows)
	var run *reportRun
	if reportPath != "" {
		run = newReportRun(tl, sm)
		lcfg.Observers = append(lcfg.Observers, run.observers()...)
		lcfg.OnProbe = run.rec.Counted
	}
	live, err := livereplay.LiveReplay(ctx, lcfg)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	lines, decisionsOK := livereplay.Compare(tl.Start, simulated.Decisions, live.Decisions)
	states, statesOK := livereplay.CompareStates(tl.Start, tl.Names(), simulated.States, live.States)
	var gaps []string
	for _, g := range live.Gaps {
		gaps = append(gaps, "not exercised: "+livereplay.DescribeGap(tl.Start, g))
	}
	ok := decisionsOK && statesOK && len(gaps) == 0
	results := xs.Results()
	xlines, held := livereplay.ExpectationLines(tl.File, results)
	if run != nil {
		run.extra = "decisions, simulated against live (within one tick):\n  " + strings.Join(lines, "\n  ") +
			"\n\nstate changes, simulated against live (within one tick):\n  " + strings.Join(states, "\n  ")
		if len(gaps) > 0 {
			run.extra += "\n\n" + strings.Join(gaps, "\n")
		}
		if len(xlines) > 0 {
			run.extra += "\n\n" + strings.Join(xlines, "\n")
		}
		if err := m.writeReport(ctx, reportPath, "html", run, path); err != nil {
			return err
		}
	}
	if f == report.JSON {
		server := checker.Addr()
		if against != "" {
			server = "built-in"
		}
		b, _ := json.Marshal(livereplay.Output[livereplay.Summary]{LiveSummary: livereplay.Summary{Agree: ok, Decisions: lines,
			Expectations: results, File: tl.File, Notes: gaps, Server: server, Speed: speed, States: states}})
		fmt.Fprintf(m.Stdout, "%s\n", b)
	} else {
		fmt.Fprint(m.Stdout, liveComparison(lines, states, gaps, xlines, ok))
	}
	if out.err != nil {
		return out.err
	}
	if tally != nil {
		if err := report.WriteShadows(m.Stdout, f, tl.Start, tl.Names(), shadows, tally); err != nil {
			return err
		}
	}
	if !ok || !held {
		return failedErr()
	}
	return nil
}

// liveComparison is the text a live replay prints after its events: the decisions and the
// state changes, simulated against live, what was not exercised, the verdict, and the live
// expectations.
func liveComparison(decisions, states, notes, expectations []string, agree bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ndecisions, simulated against live (within one tick):\n  %s\n", strings.Join(decisions, "\n  "))
	fmt.Fprintf(&b, "\nstate changes, simulated against live (within one tick):\n  %s\n", strings.Join(states, "\n  "))
	if len(notes) > 0 {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(notes, "\n"))
	}
	if agree {
		b.WriteString("verdict: agree\n")
	} else {
		b.WriteString("verdict: differ\n")
	}
	if len(expectations) > 0 {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(expectations, "\n"))
	}
	return b.String()
}

// simulate replays tl in the simulator and returns its fencing decisions and state changes,
// to set beside the live ones.
func simulate(tl *timeline.Timeline, sm *statemap.Map) *livereplay.Recorder {
	rec := &livereplay.Recorder{Names: tl.Names()}
	sim.Replay(tl, sm, rec)
	return rec
}
