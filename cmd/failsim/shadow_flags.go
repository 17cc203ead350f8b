package main

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/statemap"
)

// shadowFlags collects repeated --shadow NAME=FILE flags.
type shadowFlags []string

func (s *shadowFlags) String() string     { return "" }
func (s *shadowFlags) Set(v string) error { *s = append(*s, v); return nil }
func (s *shadowFlags) Type() string       { return "shadow" }
func (s *shadowFlags) repeatable()        {}

// shadowVar registers --shadow on c.
func shadowVar(c *cobra.Command, p *shadowFlags, usage string) {
	c.Flags().Var(p, "shadow", usage)
}

// loadShadows reads the --shadow flags: NAME=FILE each, the names distinct (letters, digits,
// '-', '_' and '.'), each file a statemap override. Bad input is a usage error (exit 2) naming
// the flag, or the file and line.
func loadShadows(ctx context.Context, flags []string) ([]shadow.Spec, error) {
	const hint = "--shadow aggressive=conf/examples/aggressive.properties"
	var out []shadow.Spec
	seen := map[string]string{}
	for i, v := range flags {
		name, file, ok := strings.Cut(v, "=")
		if !ok || file == "" {
			return nil, usageErr(fmt.Errorf("--shadow #%d %q: want NAME=FILE", i+1, v), hint)
		}
		if !shadowName(name) {
			return nil, usageErr(fmt.Errorf("--shadow #%d: shadow name %q: want letters, digits, '-', '_' or '.'", i+1, name), hint)
		}
		if prev, dup := seen[name]; dup {
			return nil, usageErr(fmt.Errorf("--shadow %s: named twice (%s and %s)", name, prev, file), "give each shadow a name of its own")
		}
		seen[name] = file
		m, err := statemap.LoadContext(ctx, file)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, usageErr(fmt.Errorf("--shadow %s: %w", name, err), "")
		}
		out = append(out, shadow.Spec{Name: name, File: file, Map: m})
	}
	return out, nil
}

// shadowName reports whether s is a shadow's name: not empty, letters, digits, '-', '_', '.'
// (it is a metric label and a log field).
func shadowName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return false
		}
	}
	return true
}
