package cputime

import (
	"runtime"
	"testing"
)

// TestUsedGrows: work done shows in the CPU time (where it can be read at all).
func TestUsedGrows(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no getrusage")
	}
	before := Used()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if Used() <= before || x == 0 {
		t.Errorf("CPU time did not grow over 50 million loop turns: %v then %v", before, Used())
	}
}
