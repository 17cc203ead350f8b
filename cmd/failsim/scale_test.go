package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestScaleDocMatchesScript: the commands docs/scale.md gives to try sharding on one machine are
// exactly the ones testdata/script/scale.txtar runs, so the doc's commands are tested; and the
// manifests it gives run the same command, at scale.
func TestScaleDocMatchesScript(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scale.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/script/scale.txtar")
	if err != nil {
		t.Fatal(err)
	}
	// The doc's block: the first sh block after its heading.
	_, rest, ok := strings.Cut(string(doc), "\n## Try it on one machine, with N=4\n")
	_, rest, ok2 := strings.Cut(rest, "```sh\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/scale.md has no sh block under \"## Try it on one machine, with N=4\"")
	}
	want := strings.Split(strings.TrimSpace(block), "\n")

	// The script's commands up to its marker, an env line joined to the exec that follows.
	part, _, ok := strings.Cut(string(script), "\n# Not in the doc")
	if !ok {
		t.Fatal("scale.txtar has no \"# Not in the doc\" line")
	}
	var got []string
	env := ""
	for _, line := range strings.Split(part, "\n") {
		switch {
		case strings.HasPrefix(line, "env "):
			env = strings.TrimPrefix(line, "env ") + " "
		case strings.HasPrefix(line, "exec failsim "), strings.HasPrefix(line, "! exec failsim "):
			_, cmd, _ := strings.Cut(line, "exec ")
			got = append(got, env+cmd)
			env = ""
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("scale.txtar runs\n  %s\ndocs/scale.md gives\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if len(want) != 5 || strings.Count(block, "--shard auto/4") != 4 {
		t.Errorf("the doc's block should be 4 shards and a merge:\n%s", block)
	}

	// The manifests: the Indexed Job's shards, the matrix's, and their merges.
	for _, s := range []string{
		"completionMode: Indexed",
		"- auto/100\n",
		"--shard ${{ matrix.shard }}/20",
		"failsim merge -o /shares --junit /shares/junit.xml /shares/check-shard-*-of-100.json",
		"failsim merge --junit shares/junit.xml shares/check-shard-*-of-20.json",
	} {
		if !strings.Contains(string(doc), s) {
			t.Errorf("docs/scale.md does not say %q", s)
		}
	}
}
