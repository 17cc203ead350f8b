package main

import (
	"archive/zip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/bundle"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/timeline"
)

func (m *Main) importCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "import",
		Short: "turn a failover manager's own records of an incident into a timeline",
		Long: `Turn what a failover manager recorded of an incident into a timeline failsim replays:
import tungsten reads a Tungsten support bundle (docs/import.md).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr(fmt.Errorf("import: unknown source %q: want tungsten", args[0]), "failsim import tungsten BUNDLE")
			}
			return usageErr(fmt.Errorf("import takes a source: tungsten"), "failsim import tungsten BUNDLE")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	c.AddCommand(m.importTungstenCmd())
	return c
}

func (m *Main) importTungstenCmd() *cobra.Command {
	var out string
	var opt bundle.Options
	c := &cobra.Command{
		Use:   "tungsten",
		Short: "read a Tungsten support bundle (tpm diag) and write the timeline it implies",
		Long: `Read one or more Tungsten support bundles, as tpm diag writes them (a folder per host, or
its .zip), or single files of one, and write the incident timeline they imply: the cluster and policy of the
earliest cctrl ls snapshot; at each snapshot an expect line per datasource's state, a
failover where the master changed and a fault where a state implies one; from tmsvc.log's
quorum checks, partitions and expect primary / expect no primary. Files are found by name:
tmsvc.log (the manager's log), any name with "cctrl" in it (cctrl output); trepsvc.log and
connector.log are listed, not read. Above every statement a comment names the bundle's file
and line it came from and what was inferred; what could not be placed is listed at the end as
not imported. --interval and --timeout are the cluster's checker (mgr_monitor_interval,
mon_db_query_timeout), which a bundle does not hold. The timeline goes to standard output, or with -o to FILE, written whole or not
at all. docs/import.md says what a bundle cannot tell and how to fill it in.
Exit 0 on success, 2 for bad input (the message names the file and line).`,
		Annotations: map[string]string{argsAnnotation: "BUNDLE..."},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(fmt.Errorf("import tungsten takes one or more bundles (folders or files), got none"), "failsim import tungsten tungsten-diag-2025-02-02/")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return m.runImportTungsten(c.Context(), out, opt, args)
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "write the timeline to `FILE` (default: standard output)")
	intervalVar(c, &opt.Interval)
	c.Flags().DurationVar(&opt.Timeout, "timeout", timeline.DefaultTimeout, "the checker's probe budget, a `DURATION` (the cluster's mon_db_query_timeout)")
	return c
}

func (m *Main) runImportTungsten(ctx context.Context, out string, opt bundle.Options, paths []string) error {
	if err := checkerFlags(opt.Interval, opt.Timeout); err != nil {
		return err
	}
	if out != "" && out != "-" {
		if err := output.Check(out, paths...); err != nil {
			return usageErr(fmt.Errorf("import %w", err), "")
		}
	}
	var files []bundle.File
	for _, p := range paths {
		fs, err := readBundle(ctx, p)
		if err != nil {
			return loadErr(ctx, "import", err)
		}
		files = append(files, fs...)
	}
	res, err := bundle.Import(files, opt)
	if err != nil {
		return usageErr(err, "")
	}
	res.Timeline.File = "imported.timeline"
	if out != "" && out != "-" {
		res.Timeline.File = out
	}
	text := timeline.FormatCommented(res.Timeline, res.Comments)
	// What is written must read back: a timeline the importer cannot write is its own bug.
	if _, err := timeline.Parse(res.Timeline.File, text); err != nil {
		return fmt.Errorf("import: the imported timeline does not parse: %w", err)
	}
	if out == "" || out == "-" {
		if _, err := m.Stdout.Write(text); err != nil {
			return err
		}
	} else if err := output.WriteFile(out, text, paths...); err != nil {
		return usageErr(fmt.Errorf("import %w", err), "")
	}
	if out != "" && out != "-" {
		// The list is at the timeline's end; with -o it is said here too, where it is seen.
		for _, n := range res.NotImported {
			fmt.Fprintf(m.Stderr, "failsim: not imported: %s\n", n.Why)
			for _, l := range n.Lines {
				fmt.Fprintf(m.Stderr, "    %s\n", l)
			}
		}
	}
	skipped := 0
	for _, s := range res.Skipped {
		skipped += s.Lines
	}
	fmt.Fprintf(m.Stderr, "failsim: imported %s, %s and %s from %s; %s not imported (listed at the end of the timeline); %s skipped as unknown\n",
		plural(len(res.Timeline.Nodes)+len(res.Timeline.Witnesses), "member"), plural(len(res.Timeline.Events), "event"), plural(len(res.Timeline.Expects), "expectation"),
		plural(len(res.Skipped), "file"), plural(len(res.NotImported)+len(res.Unread), "item"), plural(skipped, "line"))
	return nil
}

// readBundle reads a bundle folder, a bundle zipped (tpm diag writes a .zip), or one file of
// a bundle, told by its name.
func readBundle(ctx context.Context, p string) ([]bundle.File, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	name := filepath.ToSlash(filepath.Clean(p))
	if fi.IsDir() {
		return bundle.Read(os.DirFS(p), name, bundle.DefaultLimits)
	}
	if strings.EqualFold(filepath.Ext(p), ".zip") {
		if !fi.Mode().IsRegular() || fi.Size() > bundle.DefaultLimits.Total {
			return nil, fmt.Errorf("%s: want a regular file of at most %s", p, input.Size(bundle.DefaultLimits.Total))
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil {
			return nil, fmt.Errorf("%s: not a zip archive: %w", p, err)
		}
		return bundle.Read(zr, name, bundle.DefaultLimits)
	}
	k := bundle.Classify(filepath.ToSlash(p))
	switch k {
	case bundle.Other:
		return nil, fmt.Errorf("%s: not a file of a Tungsten bundle: want tmsvc.log, a cctrl output (a name with \"cctrl\" in it) or a bundle's folder", p)
	case bundle.Replicator, bundle.Connector:
		return []bundle.File{{Name: p, Kind: k}}, nil
	}
	data, err := input.ReadFile(ctx, p, "bundle file", bundle.DefaultLimits.File)
	if err != nil {
		return nil, err
	}
	return []bundle.File{{Name: p, Kind: k, Data: data}}, nil
}
