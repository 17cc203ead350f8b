package htmlreport_test

import (
	"strings"
	"testing"
)

// TestGroupRows: the chart of a partition draws it, its primary views with the manager's
// counts, its zero-length split-brain window and the shun; a timeline with no witness,
// partition or host event has none of the group's rows.
func TestGroupRows(t *testing.T) {
	tl, m := load(t, "../testdata/incidents/partition-master.timeline")
	_, chart := render(t, tl, m)
	s := string(chart)
	for _, want := range []string{
		`>network</text>`, `>primary</text>`, `>split brain</text>`,
		`<title>partition db1 | db2 db3 from 14:02:05 to 14:20:00</title>`,
		`class="np"><title>no primary view from 14:02:10 to 14:02:30: NON-PRIMARY partition of view db1 db2 db3: 1 of 3 DB members validated, majority 2`,
		`<title>primary view db2 db3 from 14:02:30 to 14:20:00: `,
		`class="sz" data-t="150"><title>split brain at 14:02:30: db1 db2 writable at once, a zero-length window</title>`,
		`>side 1's copy</text>`, `>side 2's copy</text>`,
		`class="nm"><title>copy 0 of the cluster state, held by db1: no master in service from 14:02:30 to 14:20:00</title>`,
		`class="n1"><title>copy 1 of the cluster state, held by db2 db3: master db2 from 14:02:30 to 14:20:00</title>`,
		`class="fs" data-t="150"><title>14:02:30 db1 FAILSAFE-SHUN: its manager&#39;s view was not primary for 3 ticks: master shunned</title>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}

	tl, m = load(t, "../testdata/incidents/host-crash.timeline")
	_, chart = render(t, tl, m)
	if !strings.Contains(string(chart), ` host down from `) {
		t.Errorf("host-crash's chart draws no host down")
	}

	tl, m = load(t, "../testdata/incidents/manager-outage.timeline")
	_, chart = render(t, tl, m)
	for _, not := range []string{">network</text>", "s copy</text>", `class="gp"`, `class="pv"`, `.sb{`, "group:"} {
		if strings.Contains(string(chart), not) {
			t.Errorf("manager-outage has no witness, partition or host event, yet its chart has %q", not)
		}
	}
}
