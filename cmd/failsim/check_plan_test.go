package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/property"
)

// TestCheckJudgesItsPlan: for every --family and every property list failsim check is given
// (none, each property alone, each with a duration where it takes one, two at once), with and
// without a workload, check refuses the flags (exit 2, with Plan's message) exactly when
// check.Flags.Plan does, and otherwise judges exactly the families and properties Plan
// returns, in its order: its share says so and failsim merge's reader accepts it. The command
// and merge cannot drift apart on what a run with given flags judges.
func TestCheckJudgesItsPlan(t *testing.T) {
	var lists [][]string
	lists = append(lists, nil)
	for _, n := range property.Names() {
		lists = append(lists, []string{n}, []string{n + "=90s"})
	}
	lists = append(lists, []string{property.SingleMaster, property.NoSplitBrain}, []string{"detects-death-within=2m", property.NoFalseFailover})
	dir := t.TempDir()
	t.Chdir(dir)
	judged := 0
	for _, fam := range []string{"benign", "fatal", "mixed", "partition", "all"} {
		for _, workload := range []string{"", "writes=20/s,deadline=2s"} {
			for _, props := range lists {
				args := []string{"check", "--family", fam, "--traces", "1", "--nodes", "3", "--length", "10m", "--shard", "0/1", "--out", "out", "--workers", "1"}
				flags := check.Flags{Family: fam, Properties: []string{}, Workload: workload}
				for _, p := range props {
					args = append(args, "--property", p)
				}
				if workload != "" {
					args = append(args, "--workload", workload)
				}
				name := strings.Join(args[1:], " ")
				var specs []property.Spec
				parsed := true
				for _, p := range props {
					sp, err := property.ParseSpec(p)
					if err != nil {
						parsed = false // refused by the flag's parser, before any plan
						break
					}
					specs = append(specs, sp)
					flags.Properties = append(flags.Properties, p)
				}
				var out, errOut bytes.Buffer
				os.RemoveAll("out")
				code := (&Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}).Exit(context.Background(), args)
				if !parsed {
					if code != 2 {
						t.Errorf("%s: exit %d, want 2 for a property that does not parse", name, code)
					}
					continue
				}
				plan, err := flags.Plan()
				if err != nil {
					if code != 2 || !strings.Contains(errOut.String(), err.Error()) {
						t.Errorf("%s: exit %d, stderr %q; Plan refuses it: %v", name, code, errOut.String(), err)
					}
					continue
				}
				if code != 0 {
					t.Errorf("%s: exit %d; Plan takes it\n%s", name, code, errOut.String())
					continue
				}
				path := filepath.Join("out", check.ShareFileName(0, 1))
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				s, err := check.ParseShare(path, b)
				if err != nil {
					t.Errorf("%s: merge refuses the share check wrote: %v", name, err)
					continue
				}
				var got, want []string
				for _, f := range s.Families {
					for _, p := range f.Properties {
						got = append(got, f.Family+": "+p.Property)
					}
				}
				for _, p := range plan {
					for _, sp := range p.Properties {
						want = append(want, p.Family.String()+": "+sp.String())
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: judged %q, Plan says %q", name, got, want)
				}
				judged++
			}
		}
	}
	if judged < 40 {
		t.Errorf("only %d runs judged: the lists test too little", judged)
	}
}
