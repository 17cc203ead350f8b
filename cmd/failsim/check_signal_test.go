//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An interrupted check prints no JSON document, writes no JUnit file and no share: what is
// incomplete is not passed on as a verdict. (TestSignalStopsCheck pins the text run's.)
func TestSignalStopsCheckJSONAndShard(t *testing.T) {
	const msg = "failsim: error: check interrupted by SIGINT: the output above is incomplete\n"
	dir := t.TempDir()
	p := start(t, dir, `checking`, "check", "--family", "benign", "--traces", "10000000", "--format", "json", "--junit", "j.xml", "--log-level", "debug")
	time.Sleep(300 * time.Millisecond) // some traces replayed; not measured
	expectStop(t, p, syscall.SIGINT, 130)
	if out := p.out(); out != "" {
		t.Errorf("stdout:\n%s", out)
	}
	if got := p.errOut(); !strings.Contains(got, msg) {
		t.Errorf("stderr:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "j.xml")); !os.IsNotExist(err) {
		t.Errorf("an interrupted run wrote its JUnit file: %v", err)
	}

	p = start(t, dir, `^shard 1 of 2: traces 5000000 to 9999999 of each family$`, "check", "--family", "benign", "--traces", "10000000", "--shard", "1/2", "--out", "shares")
	time.Sleep(300 * time.Millisecond)
	expectStop(t, p, syscall.SIGINT, 130)
	if out := p.out(); !strings.Contains(out, "\nbenign:\n  interrupted after ") || strings.Contains(out, "wrote") {
		t.Errorf("stdout:\n%s", out)
	}
	if got := p.errOut(); !strings.Contains(got, msg) {
		t.Errorf("stderr:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "shares", "check-shard-1-of-2.json")); !os.IsNotExist(err) {
		t.Errorf("an interrupted shard wrote its share: %v", err)
	}
}
