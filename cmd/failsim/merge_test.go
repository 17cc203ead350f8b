package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runIn runs failsim with args in dir and returns its stdout and exit code.
func runIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	code := (&Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}).Exit(context.Background(), args)
	if code == 2 {
		t.Fatalf("failsim %s: exit 2: %s", strings.Join(args, " "), errOut.String())
	}
	return out.String(), code
}

// readDir returns every file under dir, by its path below dir, with its bytes.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFourShardsMergedEqualOneRun: failsim check in 4 shards, joined by failsim merge, prints
// exactly what one run prints, byte for byte: the text, the JSON document, the JUnit file, the
// counterexample files and the exit code; on a statemap that violates properties and on one
// that holds them.
func TestFourShardsMergedEqualOneRun(t *testing.T) {
	aggressive, err := os.ReadFile("../../conf/examples/aggressive.properties")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		flags []string
		exit  int
	}{
		{"aggressive", []string{"--statemap", "sm/aggressive.properties", "--traces", "203"}, 1},
		{"objective", []string{"--family", "fatal", "--property", "detects-death-within=30s", "--property", "single-master", "--traces", "90", "--seed", "5"}, 1},
		{"held", []string{"--family", "benign", "--traces", "41", "--nodes", "3", "--length", "20m"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			one, merged := t.TempDir(), t.TempDir()
			for _, dir := range []string{one, merged} {
				os.Mkdir(filepath.Join(dir, "sm"), 0o755)
				if err := os.WriteFile(filepath.Join(dir, "sm", "aggressive.properties"), aggressive, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			check := append([]string{"check", "--out", "results/ce"}, c.flags...)
			text, code := runIn(t, one, append(check, "--junit", "results/junit.xml")...)
			jsonOut, jsonCode := runIn(t, one, append(check, "--format", "json", "--workers", "1")...)
			if code != c.exit || jsonCode != c.exit {
				t.Fatalf("one run: exit %d, with --format json %d; want %d\n%s", code, jsonCode, c.exit, text)
			}
			var shares []string
			for k := range 4 {
				if out, code := runIn(t, merged, append(check, "--shard", fmt.Sprintf("%d/4", k))...); code != 0 {
					t.Fatalf("shard %d/4: exit %d\n%s", k, code, out)
				}
				shares = append(shares, filepath.Join("results", "ce", fmt.Sprintf("check-shard-%d-of-4.json", k)))
			}
			// In another order than the shards': merge sorts them.
			shares[0], shares[3] = shares[3], shares[0]
			mText, mCode := runIn(t, merged, append([]string{"merge", "--junit", "results/junit.xml"}, shares...)...)
			mJSON, mJSONCode := runIn(t, merged, append([]string{"merge", "--format", "json"}, shares...)...)
			if mCode != c.exit || mJSONCode != c.exit {
				t.Errorf("merge: exit %d, with --format json %d; want %d", mCode, mJSONCode, c.exit)
			}
			if mText != text {
				t.Errorf("merge printed\n%s\none run printed\n%s", mText, text)
			}
			if mJSON != jsonOut {
				t.Errorf("merge --format json printed\n%s\none run printed\n%s", mJSON, jsonOut)
			}
			oneFiles, mergedFiles := readDir(t, filepath.Join(one, "results")), readDir(t, filepath.Join(merged, "results"))
			for name := range mergedFiles {
				if strings.HasPrefix(filepath.Base(name), "check-shard-") {
					delete(mergedFiles, name)
				}
			}
			if len(oneFiles) < 1 || (c.exit == 1) != (len(oneFiles) > 1) {
				t.Errorf("one run wrote %d files", len(oneFiles))
			}
			for name, want := range oneFiles {
				if got, ok := mergedFiles[name]; !ok {
					t.Errorf("merge wrote no %s", name)
				} else if got != want {
					t.Errorf("%s: merge wrote\n%s\none run wrote\n%s", name, got, want)
				}
			}
			if len(mergedFiles) != len(oneFiles) {
				t.Errorf("merge wrote %d files, one run %d", len(mergedFiles), len(oneFiles))
			}
		})
	}
}

// TestJUnitParses: the JUnit file reads back with encoding/xml: a suite per family, a case per
// property, a failure with its counterexample for each violated one.
func TestJUnitParses(t *testing.T) {
	dir := t.TempDir()
	out, code := runIn(t, dir, "check", "--statemap", filepath.Join(mustAbs(t, "../../conf/examples/aggressive.properties")),
		"--traces", "100", "--out", "ce", "--junit", "junit.xml")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, b)
	}
	if len(doc.Suites) != 3 || doc.Suites[0].Name != "benign" || doc.Suites[2].Name != "mixed" {
		t.Fatalf("suites: %+v", doc.Suites)
	}
	cases, failures := 0, 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			cases++
			if c.Classname != "failsim.check."+s.Name {
				t.Errorf("%s: classname %q", c.Name, c.Classname)
			}
			if c.Failure == nil {
				continue
			}
			failures++
			if !strings.HasPrefix(c.Failure.Message, "violated in ") || !strings.Contains(c.Failure.Text, "\nexpect property "+c.Name+"\n") ||
				!strings.Contains(c.Failure.Text, "reproduce: failsim replay ce/check-") {
				t.Errorf("%s %s: failure %q:\n%s", s.Name, c.Name, c.Failure.Message, c.Failure.Text)
			}
		}
	}
	if cases != 15 || doc.Tests != 15 || failures == 0 || failures != doc.Failures || failures != strings.Count(out, "VIOLATED") {
		t.Errorf("%d cases (tests=%d), %d failures (failures=%d); the text says %d violated:\n%s", cases, doc.Tests, failures, doc.Failures, strings.Count(out, "VIOLATED"), out)
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestMergeExitCodes: bad input to merge is exit 2, whatever the shares found; a shard exits 0
// even when it found a violation (TestFourShardsMergedEqualOneRun), the merge 1.
func TestMergeExitCodes(t *testing.T) {
	dir := t.TempDir()
	sm := mustAbs(t, "../../conf/examples/aggressive.properties")
	for k := range 2 {
		if _, code := runIn(t, dir, "check", "--statemap", sm, "--family", "benign", "--traces", "20", "--out", "s", "--shard", fmt.Sprintf("%d/2", k)); code != 0 {
			t.Fatalf("shard %d/2 exit %d, want 0", k, code)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"merge", "s/check-shard-0-of-2.json", "s/check-shard-1-of-2.json"}, 1},
		{[]string{"merge", "s/check-shard-0-of-2.json"}, 2},
		{[]string{"merge", "s/check-shard-0-of-2.json", "s/check-shard-1-of-2.json", "s/check-shard-1-of-2.json"}, 2},
		{[]string{"merge", "broken.json"}, 2},
		{[]string{"merge"}, 2},
		{[]string{"merge", "--format", "csv", "s/check-shard-0-of-2.json"}, 2},
		{[]string{"check", "--shard", "2/2"}, 2},
	} {
		t.Chdir(dir)
		var out, errOut bytes.Buffer
		if got := (&Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}).Exit(context.Background(), c.args); got != c.want {
			t.Errorf("failsim %v: exit %d, want %d\n%s", c.args, got, c.want, errOut.String())
		}
	}
}
