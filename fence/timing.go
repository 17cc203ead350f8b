package fence

import "time"

// NextProbeStart returns when a node's next probe starts: interval after the previous one
// started, or as soon as it finished if that is later. One node's probes never overlap.
func NextProbeStart(started, finished, interval time.Duration) time.Duration {
	return max(started+interval, finished)
}
