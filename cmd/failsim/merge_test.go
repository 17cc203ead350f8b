package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// runCode runs failsim with args in dir and returns its stdout, stderr and exit code.
func runCode(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	code := (&Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}).Exit(context.Background(), args)
	return out.String(), errOut.String(), code
}

// twoShares writes the two shares of a benign run under the aggressive statemap (which
// violates no-false-failover) to dir/s and returns their text.
func twoShares(t *testing.T, dir string) [2]string {
	t.Helper()
	sm := mustAbs(t, "../../conf/examples/aggressive.properties")
	var shares [2]string
	for k := range 2 {
		if _, code := runIn(t, dir, "check", "--statemap", sm, "--family", "benign", "--traces", "20", "--out", "s", "--shard", fmt.Sprintf("%d/2", k)); code != 0 {
			t.Fatalf("shard %d/2 exit %d, want 0", k, code)
		}
		b, err := os.ReadFile(filepath.Join(dir, "s", fmt.Sprintf("check-shard-%d-of-2.json", k)))
		if err != nil {
			t.Fatal(err)
		}
		shares[k] = string(b)
	}
	return shares
}

// TestMergeRefusesWhatASharePicks: a share does not choose where merge writes nor what goes
// into a counterexample's header: an absolute or .. --out, a control character in a path or a
// verdict's text, an empty --out, and a huge shard count are refused at the share's line, exit
// 2, with nothing printed and nothing written; -o DIR takes the counterexamples instead.
func TestMergeRefusesWhatASharePicks(t *testing.T) {
	dir := t.TempDir()
	shares := twoShares(t, dir)
	evil := filepath.Join(t.TempDir(), "evil")
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"absolute", `"out": "s"`, `"out": "` + evil + `"`, `:12: the run's --out "` + evil + `" is an absolute path`},
		{"dotdot", `"out": "s"`, `"out": "../evil"`, `:12: the run's --out "../evil" leaves the current directory (..)`},
		{"inner dotdot", `"out": "s"`, `"out": "s/../../evil"`, `leaves the current directory (..)`},
		{"control", `"out": "s"`, `"out": "odd\ndir\u0001"`, `:12: "odd\ndir\x01": a control character (U+000A) in the text`},
		{"empty", `"out": "s"`, `"out": ""`, `:12: out "": want the directory the run's --out named`},
		{"why", `"why": "`, `"why": "x\ncluster evil:master\n`, `: a control character (U+000A) in the text`},
		{"junit breaker", `"shrunk_why": "`, `"shrunk_why": "\u0001`, `a control character (U+0001) in the text`},
		{"huge", `"shards": 2,`, `"shards": 10000000,`, `shard 1 to 9999999 of 10000000 (9999999 shards) missing`},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := [2]string{strings.Replace(shares[0], c.old, c.new, -1), strings.Replace(shares[1], c.old, c.new, -1)}
			if c.name == "huge" {
				files[0] = strings.Replace(files[0], `"traces": 20,`, `"traces": 100000000,`, 1) // shard 0's block is still traces 0 to 9
				files = [2]string{files[0], ""}
			}
			if files[0] == shares[0] {
				t.Fatalf("%q is not in the share", c.old)
			}
			work := t.TempDir()
			var args []string
			for k, f := range files {
				if f == "" {
					continue
				}
				name := fmt.Sprintf("share-%d.json", k)
				if err := os.WriteFile(filepath.Join(work, name), []byte(f), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, name)
			}
			stdout, stderr, code := runCode(t, work, append([]string{"merge", "--junit", "junit.xml"}, args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, and %s", code, stdout, stderr, c.want)
			}
			if len(stderr) > 1000 {
				t.Errorf("a %d-byte message", len(stderr))
			}
			if got := readDir(t, work); len(got) != len(args) {
				t.Errorf("the merge wrote files: %v", slices.Collect(maps.Keys(got)))
			}
			if _, err := os.Lstat(evil); err == nil {
				t.Errorf("the merge wrote %s", evil)
			}
		})
	}
	// -o DIR: the counterexamples go there, whatever the share's --out says.
	work := t.TempDir()
	for k, f := range shares {
		f = strings.Replace(f, `"out": "s"`, `"out": "`+evil+`"`, 1)
		if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("share-%d.json", k)), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, code := runIn(t, work, "merge", "-o", "ce", "share-0.json", "share-1.json")
	if code != 1 || !strings.Contains(out, "reproduce: failsim replay ce/check-no-false-failover-seed1-trace0.timeline") {
		t.Errorf("merge -o ce: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(work, "ce", "check-no-false-failover-seed1-trace0.timeline")); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(evil); err == nil {
		t.Errorf("the merge wrote %s", evil)
	}
}

// TestMergeJudgesEachShareAsRead: a shard given twice stops the merge at the second file, before
// the files after it are read (100 hard links to one share; the last a file that is not there).
func TestMergeJudgesEachShareAsRead(t *testing.T) {
	dir := t.TempDir()
	twoShares(t, dir)
	args := []string{"merge", "s/check-shard-0-of-2.json"}
	for i := range 100 {
		link := filepath.Join("s", fmt.Sprintf("link-%d.json", i))
		if err := os.Link(filepath.Join(dir, "s", "check-shard-0-of-2.json"), filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
		args = append(args, link)
	}
	args = append(args, "nosuch.json")
	_, stderr, code := runCode(t, dir, args...)
	if want := "failsim: error: s/link-0.json:4: shard 0 of 2 again, as in s/check-shard-0-of-2.json\n"; code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, %s\nwant exit 2, %s", code, stderr, want)
	}
}

// TestMergeStdoutFull: a merge (and a check) whose standard output cannot be written says so
// and exits 2, on a real /dev/full, instead of exiting 0 or 1 with nothing said.
func TestMergeStdoutFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	twoShares(t, dir)
	for _, args := range [][]string{
		{"merge", "s/check-shard-0-of-2.json", "s/check-shard-1-of-2.json"},
		{"merge", "--format", "json", "s/check-shard-0-of-2.json", "s/check-shard-1-of-2.json"},
		{"check", "--family", "benign", "--traces", "5"},
	} {
		t.Chdir(dir)
		var errOut bytes.Buffer
		code := (&Main{Stdin: bytes.NewReader(nil), Stdout: full, Stderr: &errOut}).Exit(context.Background(), args)
		if want := "failsim: error: write /dev/full: no space left on device\n"; code != 2 || errOut.String() != want {
			t.Errorf("failsim %v > /dev/full: exit %d, %q; want exit 2, %q", args, code, errOut.String(), want)
		}
	}
}

// TestMergeCapsTheTotal: the shares of one merge are read up to a total (1 GiB; lowered here
// to under two shares), past which the merge stops at the file that crosses it, exit 2.
func TestMergeCapsTheTotal(t *testing.T) {
	dir := t.TempDir()
	shares := twoShares(t, dir)
	defer func(was int64) { mergeMax = was }(mergeMax)
	mergeMax = int64(len(shares[0]) + len(shares[1]) - 1)
	_, stderr, code := runCode(t, dir, "merge", "s/check-shard-0-of-2.json", "s/check-shard-1-of-2.json")
	want := fmt.Sprintf("failsim: error: s/check-shard-1-of-2.json: the shares up to it are %d bytes, more than the %d one merge reads\n", mergeMax+1, mergeMax)
	if code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, %s\nwant exit 2, %s", code, stderr, want)
	}
}
