//go:build !unix

package check

import "time"

// cpuTime is 0 where the process's CPU time is not at hand.
func cpuTime() time.Duration { return 0 }
