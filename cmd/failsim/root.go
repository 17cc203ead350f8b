package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// argsAnnotation is the key of a command's annotation that names its positional arguments in
// its usage line, e.g. "FILE".
const argsAnnotation = "failsim-args"

// newRoot builds the command tree of one run. args are the run's arguments as typed, for the
// root's own complaint about a flag it does not know.
func (m *Main) newRoot(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "failsim",
		Short: "what your MySQL failover manager will do, before production finds out",
		Long: `failsim replays MySQL cluster incidents through a model of the Tungsten Manager's failover
decision engine, property-tests statemaps against generated fault traces, injects wire faults
with a MySQL-aware proxy, and runs the same engine live against real servers.`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          unknownCommand,
		RunE: func(c *cobra.Command, _ []string) error {
			for _, a := range args {
				if strings.HasPrefix(a, "-") {
					return usageErr(fmt.Errorf("unknown flag: %s", a), "run 'failsim help' for the commands and their flags")
				}
			}
			writeHelp(m.Stderr, c)
			return &exitError{code: 2}
		},
		// The root takes no flags but --help and --version: let an unknown one through to RunE,
		// so that a mistyped command is reported as such whatever flags follow it.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
	}
	root.SetIn(m.Stdin)
	root.SetOut(m.Stdout)
	root.SetErr(m.Stderr)
	root.SetVersionTemplate("failsim version {{.Version}}\n")
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c.OutOrStdout(), c) })
	root.SetUsageFunc(func(c *cobra.Command) error {
		_, err := fmt.Fprintf(c.ErrOrStderr(), "usage: %s\n", usageLine(c))
		return err
	})
	root.SetFlagErrorFunc(flagError)
	root.Flags().Bool("version", false, "print failsim's version and the commit it was built from")
	root.SetHelpCommand(helpCmd())
	root.AddCommand(m.replayCmd(), m.statemapCmd(), m.faultsCmd(), m.timingCmd(), m.checkCmd(), m.mergeCmd(), m.sweepCmd(), m.proxyCmd(), m.watchCmd(), m.reportCmd(), m.importCmd(), m.managerCmd())
	completionCmd(root)
	settle(root)
	return root
}

// settle keeps every command's flags in the order they were added, in help and usage lines.
func settle(c *cobra.Command) {
	c.Flags().SortFlags = false
	for _, s := range c.Commands() {
		settle(s)
	}
}

// suggestCommand returns the name of c's subcommand that word is a typo of, or "".
func suggestCommand(c *cobra.Command, word string) string {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return nearest(word, names)
}

// completionCmd adds cobra's "completion" command, in failsim's words.
func completionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	c, _, err := root.Find([]string{"completion"})
	if err != nil || c == root {
		return
	}
	c.Short = "print a shell completion script: bash, zsh, fish or powershell"
	for _, s := range c.Commands() {
		s.Short = "print the completion script for " + s.Name()
	}
	// Without a shell it prints its help; with a shell it does not know, it says so (cobra
	// would print the help and exit 0).
	c.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		hint := "failsim completion bash, zsh, fish or powershell"
		if s := suggestCommand(c, args[0]); s != "" {
			hint = fmt.Sprintf("did you mean 'failsim completion %s'?", s)
		}
		return usageErr(fmt.Errorf("completion: unknown shell %q", args[0]), hint)
	}
	c.RunE = func(c *cobra.Command, _ []string) error {
		writeHelp(c.OutOrStdout(), c)
		return nil
	}
}

// unknownCommand refuses the root's arguments: any word there is a command failsim does not
// have. A near miss gets a suggestion.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := "run 'failsim help' for the list of commands"
	if s := suggestCommand(c, args[0]); s != "" {
		hint = fmt.Sprintf("did you mean 'failsim %s'?", s)
	}
	return usageErr(fmt.Errorf("unknown command %q", args[0]), hint)
}

// helpCmd is "failsim help [COMMAND...]": the command's help on stdout.
func helpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help",
		Short: "print a command's help: its usage line, what it does and its flags",
		Annotations: map[string]string{
			argsAnnotation: "[COMMAND...]",
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, s := range target.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, cobra.CompletionWithDesc(s.Name(), s.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil {
				return usageErr(err, "run 'failsim help' for the list of commands")
			}
			if len(rest) > 0 && !target.HasParent() {
				return unknownCommand(target, rest)
			}
			if len(rest) > 0 {
				hint := fmt.Sprintf("run 'failsim help %s' for the list of its commands", strings.TrimPrefix(target.CommandPath(), "failsim "))
				if s := suggestCommand(target, rest[0]); s != "" {
					hint = fmt.Sprintf("did you mean '%s %s'?", target.CommandPath(), s)
				}
				return usageErr(fmt.Errorf("unknown command %q", strings.Join(args, " ")), hint)
			}
			writeHelp(c.OutOrStdout(), target)
			return nil
		},
	}
}

// writeHelp writes a command's help: its usage line (and its subcommands'), what it does, its
// subcommands and its flags.
func writeHelp(w io.Writer, c *cobra.Command) {
	c.InitDefaultHelpFlag()
	c.InitDefaultVersionFlag()
	fmt.Fprintf(w, "usage: %s\n", usageLine(c))
	if c.HasParent() {
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				fmt.Fprintf(w, "       %s\n", usageLine(s))
			}
		}
	}
	about := c.Long
	if about == "" {
		about = c.Short
	}
	fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(about))
	if c.HasAvailableSubCommands() {
		fmt.Fprintln(w, "\ncommands:")
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() || s.Name() == "help" {
				fmt.Fprintf(w, "  %-*s %s\n", c.NamePadding(), s.Name(), s.Short)
			}
		}
	}
	if flags := c.LocalFlags().FlagUsages(); flags != "" {
		fmt.Fprintf(w, "\nflags:\n%s", flags)
	}
	if !c.HasParent() {
		fmt.Fprint(w, "\nRun 'failsim help COMMAND' for a command's flags. Long flags take one dash or two:\n"+
			"-statemap FILE is --statemap FILE.\n")
	}
}

// usageLine is a command's one-line synopsis, generated from its flags: "failsim replay
// [--statemap FILE] [--format text|json] ... FILE".
func usageLine(c *cobra.Command) string {
	if !c.HasParent() {
		return c.Name() + " <command> [flags] [args]"
	}
	var b strings.Builder
	b.WriteString(c.CommandPath())
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name, _ := pflag.UnquoteUsage(f)
		s := "--" + f.Name
		switch {
		case name != "" && f.NoOptDefVal == "":
			s += " " + name
		case name != "" && f.Value.Type() != "bool":
			s += "[=" + name + "]" // the value is optional: --toxiproxy or --toxiproxy=ADDR
		}
		_, repeat := f.Value.(repeatable)
		_, required := f.Annotations[requiredAnnotation]
		switch {
		case required && repeat:
			s += "..."
		case repeat:
			s = "[" + s + "]..."
		case !required:
			s = "[" + s + "]"
		}
		b.WriteString(" " + s)
	})
	if a := c.Annotations[argsAnnotation]; a != "" {
		b.WriteString(" " + a)
	}
	return b.String()
}

// repeatable is a flag value that collects every use of its flag.
type repeatable interface{ repeatable() }

// requiredAnnotation marks a flag the command needs; the command itself says so when it is
// missing (cobra's own message would not say what the flag is for).
const requiredAnnotation = "failsim-required"

// markRequired shows the flag name without brackets in the usage line.
func markRequired(fs *pflag.FlagSet, name string) {
	fs.SetAnnotation(name, requiredAnnotation, []string{"true"})
}

// flagError turns pflag's errors into usage errors (exit 2) that name the flag, with a
// suggestion for a mistyped one.
func flagError(c *cobra.Command, err error) error {
	hint := fmt.Sprintf("run '%s --help' for its flags", c.CommandPath())
	var notExist *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &notExist):
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if near := nearest(notExist.GetSpecifiedName(), names); near != "" {
			hint = "did you mean --" + near + "?"
		}
	case errors.As(err, &invalid):
		err = fmt.Errorf("invalid value %q for --%s: %w", invalid.GetValue(), invalid.GetFlag().Name, invalid.Unwrap())
	}
	return usageErr(err, hint)
}

// nearest returns the name in names closest to s, if it is close enough to be a typo: at most
// two edits, or s a prefix of it.
func nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if len(s) > 1 && strings.HasPrefix(n, s) {
			return n
		}
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
