package main

import (
	"fmt"
	"strings"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/failsim/failsim/report"
)

// longFlags rewrites the single-dash long flags that Go's flag package took (-statemap FILE,
// -format=json) into the double-dash form cobra reads, so that command lines written for
// failsim before cobra keep working. A dash and one letter stays a shorthand (-h); the words
// after "--", the value of a flag that takes one, and words that do not start with a dash and
// a letter are left alone. Shell completion requests are left alone too.
func longFlags(root *cobra.Command, args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		return out
	}
	c, positional := root, false
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if !positional {
				if sub := subcommand(c, a); sub != nil {
					c = sub
					continue
				}
			}
			positional = true
			continue
		}
		name := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(name, "=")
		if !strings.HasPrefix(a, "--") {
			if len(name) < 2 || !isLetter(name[0]) {
				continue
			}
			out[i] = "-" + a
		}
		if f := lookupFlag(c, name); f != nil && !hasValue && f.NoOptDefVal == "" {
			i++ // the flag's value, whatever it looks like
		}
	}
	return out
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// subcommand returns c's subcommand named name, or nil.
func subcommand(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// lookupFlag finds a flag c takes, its own or inherited.
func lookupFlag(c *cobra.Command, name string) *pflag.Flag {
	if f := c.Flags().Lookup(name); f != nil {
		return f
	}
	return c.InheritedFlags().Lookup(name)
}

// complete offers fixed values for a flag.
func complete(c *cobra.Command, flag string, values ...cobra.Completion) {
	c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// logLevelVar adds --log-level to c.
func logLevelVar(c *cobra.Command, p *string) {
	c.Flags().StringVar(p, "log-level", "warn", "diagnostics on stderr at `LEVEL`: debug, info, warn, error or disabled")
	complete(c, "log-level", "debug", "info", "warn", "error", "disabled")
}

// formatVar adds --format to c.
func formatVar(c *cobra.Command, p *string) {
	c.Flags().StringVar(p, "format", "text", "output format: `text|json`")
	complete(c, "format", "text", "json")
}

// statemapVar adds --statemap to c, completed with .properties files.
func statemapVar(c *cobra.Command, p *string, usage string) {
	c.Flags().StringVar(p, "statemap", "", usage)
	c.MarkFlagFilename("statemap", "properties")
}

// newLogger returns a zerolog logger on Stderr at the named level.
func (m *Main) newLogger(level string) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil || level == "" {
		return zerolog.Nop(), usageErr(fmt.Errorf("--log-level %q: want debug, info, warn, error or disabled", level), "")
	}
	w := zerolog.ConsoleWriter{Out: m.Stderr, NoColor: true, PartsExclude: []string{zerolog.TimestampFieldName}}
	return zerolog.New(w).Level(lvl), nil
}

// parseFormat reads --format: text or json.
func parseFormat(s string) (report.Format, error) {
	switch s {
	case "text":
		return report.Text, nil
	case "json":
		return report.JSON, nil
	}
	return 0, usageErr(fmt.Errorf("--format %q: want text or json", s), "")
}

// noArgs refuses positional arguments with the command's own message and hint.
func noArgs(hint string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErr(fmt.Errorf("%s takes no arguments, got %q", c.Name(), args), hint)
		}
		return nil
	}
}
