package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/failsim/failsim/statemap"
)

// Properties writes map m as a statemap override that sets every condition: loaded on top of
// the shipped defaults it is m again, rule for rule (but for the rules' Source), whatever the
// defaults of the failsim that replays it. A recording keeps this copy, not the file the watch
// read: the file may be edited or gone by the time the recording is replayed.
func Properties(m *statemap.Map) []byte {
	b := []byte("# The statemap in force while failsim watch recorded: every condition's rule.\n")
	for c := range statemap.NumConditions {
		r := m.Rule(c)
		b = fmt.Appendf(b, "%s.state=%s\n%s.threshold=%d\n%s.action=%s\n", c, r.State, c, r.Threshold, c, r.Action)
	}
	return b
}

// StatemapName is the file name a recording gives statemap text data: named for its content,
// so that a map in force again after a reload shares its file.
func StatemapName(data []byte) string {
	sum := sha256.Sum256(data)
	return "statemap-" + hex.EncodeToString(sum[:6]) + ".properties"
}
