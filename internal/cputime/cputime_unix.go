//go:build unix

// Package cputime reads the process's CPU time, for benchmarks that report throughput by CPU
// time beside the clock's: on a machine shared with other work, the clock measures the load.
package cputime

import (
	"syscall"
	"time"
)

// Used is the process's user and system CPU time so far; 0 if it cannot be read.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
