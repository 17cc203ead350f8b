package check

import (
	"slices"
	"strings"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/timeline"
)

// Timeline writes trace tl as timeline text, with timeline.Format: a comment header (each line
// of header prefixed with "# "), the cluster, the checker, the family the trace was generated
// in (so that its replay judges no-false-failover as failsim check did), the liveness
// thresholds when set, the statemap statement when smPath is not "" (smPath as written, relative
// to the folder the text is written to), the policy when not automatic, the replication
// settings, the events at clock times (partitions, host events and replication events too),
// "cluster end" at tl.End, and one expect line per property: the trace's own statemap and
// expectations are not written, those given are.
func Timeline(tl *timeline.Timeline, header []string, smPath string, props ...property.Spec) []byte {
	var b []byte
	for _, h := range header {
		b = append(b, strings.TrimRight("# "+h, " ")+"\n"...)
	}
	c := *tl
	c.File, c.Statemap = "", smPath
	c.Events = slices.DeleteFunc(slices.Clone(tl.Events), func(ev timeline.Event) bool { return ev.Kind == timeline.End })
	c.Events = append(c.Events, timeline.Event{Kind: timeline.End, At: tl.End, Node: -1})
	c.Expects = make([]timeline.Expect, len(props))
	for i, p := range props {
		c.Expects[i] = timeline.Expect{Kind: timeline.ExpectProperty, Property: p, Node: -1, To: -1}
	}
	return append(b, timeline.Format(&c)...)
}
