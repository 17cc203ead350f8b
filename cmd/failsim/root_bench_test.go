package main

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// BenchmarkStartup is what failsim does in-process before and for `--version`: building
// cobra's whole command tree (every command and flag, at each start) and the run itself.
// The process's own start (the runtime and the package inits) is measured from outside: see
// the README's Performance section.
//
//	go test ./cmd/failsim -run '^$' -bench Startup -benchmem
func BenchmarkStartup(b *testing.B) {
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: io.Discard}
	b.Run("command-tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.newRoot([]string{"--version"})
		}
	})
	b.Run("version", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if m.Exit(context.Background(), []string{"--version"}) != 0 {
				b.Fatal("--version failed")
			}
		}
	})
}
