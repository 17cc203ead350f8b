package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/htmlreport"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// reportFlags are failsim report's flags.
type reportFlags struct {
	statemap, out, format, logLevel string
	statemapSet                     bool   // --statemap was given: '' is the defaults alone
	manager                         string // --manager: "" or tungsten, which overrides a timeline's manager statement
	// side is --managers (and --manager-config its Orchestrator's settings): the managers
	// drawn as stacked lanes on the chart's time axis.
	side managerFlags
}

func (m *Main) reportCmd() *cobra.Command {
	var o reportFlags
	c := &cobra.Command{
		Use:   "report",
		Short: "replay a timeline and draw it: one self-contained HTML page, or the chart alone as SVG",
		Long: `Replay an incident timeline and write its report: one self-contained HTML file (inline SVG,
CSS and a small script to zoom; nothing fetched from anywhere) that shows on one time axis,
per node, its datasource state, its probes, the faults on its link, its service and its
alarms climbing to their thresholds, and above them the failovers, the master, the
coordinator and the policy; under it the verdict and the expectations as failsim replay
prints them, and the event log. Every band and mark has a hover title with its exact time
and cause. --format svg writes the chart alone. --managers tungsten,orchestrator adds a lane
per manager above the nodes' lanes, on the same axis (its master, its decisions,
Orchestrator's analysis code, its client's writes), and Orchestrator's replay under the
verdict.

-o defaults to FILE's name with the extension .html (.svg) in the current directory, not beside
FILE; the command prints where it wrote. "-o -" writes to standard output, as does a timeline
read from standard input (FILE "-"). The file is written whole or not at all, never over
anything but a regular file, and never over FILE or the statemap.
Exit 0 when every expectation holds, 1 when one fails (the report is written either way), 2
for bad input.`,
		Annotations: map[string]string{argsAnnotation: "FILE"},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(fmt.Errorf("report takes one timeline file, got %d arguments", len(args)), "failsim report testdata/incidents/ebs-stall.timeline")
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return []cobra.Completion{"timeline"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.statemapSet = c.Flags().Changed("statemap")
			if c.Flags().Changed("managers") || c.Flags().Changed("manager-config") {
				return m.runReportManagers(c.Context(), c, &o, args[0])
			}
			return m.runReport(c.Context(), &o, args[0], nil)
		},
	}
	statemapVar(c, &o.statemap, "statemap override `FILE` (wins over the timeline's statemap statement; '' for the shipped defaults alone)")
	f := c.Flags()
	f.StringVarP(&o.out, "output", "o", "", "write the report to `FILE` (default: the timeline's name with .html or .svg, in the current directory; - for standard output)")
	f.StringVar(&o.format, "format", "html", "what to write: `html|svg`, the page or the chart alone")
	complete(c, "format", "html", "svg")
	logLevelVar(c, &o.logLevel)
	f.StringVar(&o.manager, "manager", "", "the failover manager `NAME` whose rules to draw: tungsten, the one failsim draws (wins over a timeline's manager statement)")
	complete(c, "manager", "tungsten")
	f.StringSliceVar(&o.side.side, "managers", nil, "also draw each manager of `LIST` as a lane of its own on the one time axis: its master, its decisions, Orchestrator's analysis code and the client's writes: tungsten,orchestrator (the nodes' lanes are tungsten's run)")
	f.StringVar(&o.side.config, "manager-config", "", "with --managers ...,orchestrator: its orchestrator.conf.json `FILE` (default: the manager statement's config, else Orchestrator's defaults)")
	complete(c, "managers", "tungsten,orchestrator")
	c.MarkFlagFilename("manager-config", "json")
	return c
}

// runReport is failsim report; sides, if not nil, adds the managers' lanes: it is given the
// timeline and the Tungsten run's report, and returns the lanes to draw (each manager's run
// done) and the summary's text of the other managers' runs.
func (m *Main) runReport(ctx context.Context, o *reportFlags, path string, sides func(*timeline.Timeline, *reportRun) (func() error, error)) error {
	log, err := m.newLogger(o.logLevel)
	if err != nil {
		return err
	}
	if o.format != "html" && o.format != "svg" {
		return usageErr(fmt.Errorf("--format %q: want html or svg", o.format), "")
	}
	out := o.out
	if out == "" {
		out = defaultReportPath(path, o.format)
	}
	inputs := []string{path, o.statemap}
	if out != "-" {
		// Refused before the replay: a long run does not find out only at its end.
		if err := output.Check(out, inputs...); err != nil {
			return fmt.Errorf("report %w", err)
		}
	}
	tl, sm, err := m.loadTimeline(ctx, path, o.statemap, o.statemapSet)
	if err != nil {
		if ctx.Err() != nil {
			return reportInterrupted(ctx)
		}
		return usageErr(err, "")
	}
	if o.manager != "" && o.manager != "tungsten" {
		return usageErr(fmt.Errorf("--manager %q: failsim report draws the Tungsten Manager's rules only", o.manager), "failsim replay --manager orchestrator FILE")
	}
	if err := tungstenOnly(tl, "report"); err != nil && o.manager == "" && sides == nil {
		return usageErr(err, "failsim report --manager tungsten FILE draws the Tungsten Manager's run of it")
	}
	log.Debug().Str("timeline", tl.File).Str("out", out).Msg("replaying for the report")
	run := newReportRun(tl, sm)
	var others func() error
	if sides != nil {
		if others, err = sides(tl, run); err != nil {
			return err
		}
	}
	if _, err := sim.ReplayContext(ctx, tl, sm, run.observers()...); err != nil {
		return reportInterrupted(ctx)
	}
	if others != nil {
		if err := others(); err != nil {
			return err
		}
	}
	if err := m.writeReport(ctx, out, o.format, run, inputs...); err != nil {
		return err
	}
	if out != "-" {
		fmt.Fprintf(m.Stdout, "wrote %s\n", out)
	}
	return run.judged()
}

// defaultReportPath is where failsim report writes the report of the timeline at path by
// default: its name with the format's extension, in the current directory (a report is the
// user's output, not the input's: a checkout's incidents stay as they are); standard output
// for a timeline read from standard input.
func defaultReportPath(path, format string) string {
	if path == "-" {
		return "-"
	}
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base)) + "." + format
}

// reportInterrupted is the error of a report that ctx stopped before it was written: nothing is
// written. The exit code is interrupted's.
func reportInterrupted(ctx context.Context) error {
	err := interrupted(ctx, "report")
	if ee, ok := err.(*exitError); ok && ee.code > 128 {
		ee.err = fmt.Errorf("report %v: no report written", context.Cause(ctx))
	}
	return err
}

// reportRun is a replay with its report: the run's reports (report.Run) and what the page
// draws and shows of it: the picture's recorder and the head of the event log in text.
type reportRun struct {
	*report.Run
	rec   *htmlreport.Recorder
	log   htmlreport.LogWriter    // the head of the event log: what the page shows of it
	page  *report.Printer         // the event log in text, into log
	extra string                  // more of the summary: a live run's decisions beside the simulated ones
	lane  *htmlreport.ManagerLane // the Tungsten run's manager lane, with --managers; nil for none
}

// newReportRun returns the report of a replay of tl under sm, whose only event log is the
// page's.
func newReportRun(tl *timeline.Timeline, sm *statemap.Map) *reportRun {
	return newLoggedReportRun(tl, sm, nil)
}

// newLoggedReportRun returns the report of a replay of tl under sm whose event log is out,
// told the events and the summary beside the page's; nil: none but the page's.
func newLoggedReportRun(tl *timeline.Timeline, sm *statemap.Map, out report.Log) *reportRun {
	r := &reportRun{rec: htmlreport.New(tl, sm)}
	r.page = report.NewPrinter(&r.log, report.Text, tl.Start, tl.Names())
	r.Run = report.NewRun(tl, sm, out, r.page, r.rec)
	return r
}

// observers are the replay's observers the report needs.
func (r *reportRun) observers() []drive.Observer {
	if r.lane != nil {
		return append(r.Observers(), r.lane)
	}
	return r.Observers()
}

// write writes the report in format (html or svg) to w, once the replay is over.
func (r *reportRun) write(w io.Writer, format string) error {
	if format == "svg" {
		return r.rec.WriteSVG(w)
	}
	if err := r.page.Flush(); err != nil {
		return err
	}
	var summary bytes.Buffer
	if err := r.WriteSummary(&summary, report.Text); err != nil {
		return err
	}
	if r.extra != "" {
		summary.WriteString("\n" + r.extra + "\n")
	}
	return r.rec.WriteHTML(w, r.log.Text(summary.String()))
}

// judged returns failedErr when an expectation failed.
func (r *reportRun) judged() error {
	if !r.Held() {
		return failedErr()
	}
	return nil
}

// writeReport writes run's report in format to path ("-": standard output), never over one of
// inputs (internal/output). A signal while it writes stops it: nothing is written, and the
// error is interrupted's (exit 130 or 143).
func (m *Main) writeReport(ctx context.Context, path, format string, run *reportRun, inputs ...string) error {
	return m.writeTo(ctx, path, func(w io.Writer) error { return run.write(w, format) }, inputs...)
}

// writeTo writes path through fill as writeReport does. fill's writer fails once ctx is done.
func (m *Main) writeTo(ctx context.Context, path string, fill func(io.Writer) error, inputs ...string) error {
	var err error
	if path == "-" {
		bw := bufio.NewWriter(ctxWriter{ctx, m.Stdout})
		if err = fill(bw); err == nil {
			err = bw.Flush()
		}
	} else {
		err = output.Write(ctx, path, func(w io.Writer) error { return fill(ctxWriter{ctx, w}) }, inputs...)
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("report %w", err)
		}
	}
	if err != nil && ctx.Err() != nil {
		return reportInterrupted(ctx)
	}
	return err
}

// ctxWriter writes to w until ctx is done, then fails every write with ctx's cause: a report
// being written stops at a signal.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.w.Write(p)
}

// checkReports writes a report beside each of a check run's counterexample timelines, in out:
// the timeline's name with .html.
func (m *Main) checkReports(ctx context.Context, res *check.Result, seed uint64, out string) error {
	for _, v := range res.Violations {
		path := filepath.Join(out, check.FileName(v.Property, seed, v.Trace))
		tl, sm, err := timeline.LoadContext(ctx, path, nil, "")
		if err != nil {
			return err // the file's own error names it
		}
		run := newReportRun(tl, sm)
		if _, err := sim.ReplayContext(ctx, tl, sm, run.observers()...); err != nil {
			return interrupted(ctx, "check")
		}
		html := strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
		if err := m.writeReport(ctx, html, "html", run, path); err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx, "check")
			}
			return err
		}
		fmt.Fprintf(m.Stdout, "  report: %s\n", html)
	}
	return nil
}

// runReplayReport is failsim replay --report: the replay's usual output on stdout, and its
// report written to path.
func (m *Main) runReplayReport(ctx context.Context, f report.Format, tl *timeline.Timeline, sm *statemap.Map, path string, inputs ...string) error {
	if path != "-" {
		if err := output.Check(path, inputs...); err != nil {
			return fmt.Errorf("report %w", err)
		}
	}
	run := newLoggedReportRun(tl, sm, report.NewPrinter(m.Stdout, f, tl.Start, tl.Names()))
	if _, err := sim.ReplayContext(ctx, tl, sm, run.observers()...); err != nil {
		run.Flush()
		return interrupted(ctx, "replay")
	}
	if _, err := run.Summary(); err != nil {
		return err
	}
	if err := m.writeReport(ctx, path, "html", run, inputs...); err != nil {
		return err
	}
	return run.judged()
}
