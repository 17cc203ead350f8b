package htmlreport

import (
	"fmt"
	"strings"
)

// legend writes what each colour and mark means, under the plot.
func (c *chart) legend() {
	y := plotY + c.plotH + 8
	x := 8
	item := func(draw func(x, y int), words string) {
		draw(x, y)
		fmt.Fprintf(c.b, `<text x="%d" y="%d">%s</text>`, x+22, y+10, esc(words))
		x += 22 + len(words)*6 + 14
	}
	swatch := func(cls string) func(x, y int) {
		return func(x, y int) {
			fmt.Fprintf(c.b, `<rect x="%d" y="%d" width="18" height="11" class="%s"/>`, x, y, cls)
		}
	}
	line := func(cls string) func(x, y int) {
		return func(x, y int) { fmt.Fprintf(c.b, `<path d="M%d %dV%d" class="%s"/>`, x+9, y-2, y+13, cls) }
	}
	head := func(words string) {
		fmt.Fprintf(c.b, `<text x="%d" y="%d" font-weight="bold">%s</text>`, x, y+10, words)
		x += len(words)*7 + 8
	}
	next := func() { x, y = 8, y+20 }

	head("state, probes:")
	for _, s := range []struct{ cls, w string }{{"s1", "online / ok"}, {"s2", "stopped"}, {"s3", "timeout"}, {"s4", "suspect"}, {"s0", "unknown"}} {
		item(swatch(s.cls), s.w)
	}
	fmt.Fprintf(c.b, `<text x="%d" y="%d" class="rl">(a probe is coloured by the state its outcome maps to; a run of identical outcomes is one band)</text>`, x, y+10)
	next()
	head("faults:")
	for _, s := range []struct{ cls, w string }{{"f1", "refuse, reset, close"}, {"f2", "freeze, blackhole"}, {"f3", "stall, slow"}, {"f4", "error"}, {"f5", "unreachable, hostdown"}, {"f6", "probe CONDITION"}} {
		item(swatch(s.cls), s.w)
	}
	next()
	head("service:")
	for _, s := range []struct{ cls, w string }{{"v1", "master (writable)"}, {"v0", "replica"}, {"v2", "failed"}, {"v3", "shunned"}, {"md", "manager down"}} {
		item(swatch(s.cls), s.w)
	}
	head("policy:")
	for _, s := range []struct{ cls, w string }{{"po0", "automatic"}, {"po1", "manual"}, {"po2", "maintenance"}} {
		item(swatch(s.cls), s.w)
	}
	head("master, coordinator:")
	item(swatch("n0"), "coloured by node")
	item(swatch("nm"), "none")
	next()
	head("alarms:")
	item(func(x, y int) {
		fmt.Fprintf(c.b, `<path d="M%d %dH%dV%dH%dV%dH%d" class="al a3"/><path d="M%d %dH%d" class="th"/>`, x, y+11, x+5, y+7, x+10, y+3, x+18, x, y, x+18)
	}, "ticks climbing to the threshold (dashed)")
	item(swatch("nv s3"), "never expires")
	head("marks:")
	item(line("fo"), "failover")
	item(line("nc"), "master failed, none eligible")
	item(line("nf"), "node failed")
	item(line("rc"), "recovered")
	next()
	if c.r.client.on {
		head("writes:")
		item(swatch("wk"), "acknowledged")
		item(swatch("wf"), "failed (an outage)")
		item(swatch("wf wl"), "the longest outage")
		item(line("lw"), "lost writes (a failover's or a merge's)")
		item(line("sf"), "semisync fell back")
		item(line("sr"), "semisync back")
		next()
	}
	if c.r.rp.on {
		head("replication:")
		item(swatch("rg"), "stream late or applying late")
		item(swatch("rf"), "link frozen or cut: stores nothing new")
		item(swatch("rs"), "replicator stopped")
		fmt.Fprintf(c.b, `<text x="%d" y="%d" class="rl">(at each failover: the ranking, each node's stored position and lag, or why it was no candidate)</text>`, x, y+10)
		next()
	}
	if c.r.group.on {
		head("group:")
		item(swatch("gp"), "partitioned")
		item(swatch("pv"), "a primary view")
		item(swatch("pv2"), "two primary views")
		item(swatch("np"), "no primary view")
		item(swatch("sb"), "split brain")
		item(line("sz"), "zero-length window")
		item(swatch("hd"), "host down")
		item(line("fs"), "FAILSAFE-SHUN")
		item(swatch("n0"), "a side's copy: its master")
		next()
	}
	if len(c.r.managers) > 0 {
		head("managers:")
		item(swatch("oc0"), "no problem")
		item(swatch("oc1"), "UnreachableMaster")
		item(swatch("oc2"), "DeadMaster")
		item(swatch("oc3"), "a replica's problem")
		item(line("mr"), "a master replaced")
		item(line("mn"), "a decision that replaced none")
		next()
	}
	fmt.Fprintf(c.b, `<text x="8" y="%d" class="rl">%s</text>`+"\n", y+10, esc(notModelled))
}

// notModelled says what the replay models that the picture leaves out: the verdict and the
// event log under the chart tell it.
const notModelled = "Not drawn: the views that are not primary, and a witness (it has no lane). " +
	"The verdict and the event log under the chart tell them."

// legendH is the legend's height: a line more for the writes, one for the group, one for
// the replication, one for the managers' lanes.
func (c *chart) legendH() int {
	h := legendH
	if c.r.client.on {
		h += 20
	}
	if c.r.group.on {
		h += 20
	}
	if c.r.rp.on {
		h += 20
	}
	if len(c.r.managers) > 0 {
		h += 20
	}
	return h
}

// chartCSS styles the chart; it is inside the svg element, so that the chart alone is complete.
var chartCSS = strings.Join([]string{
	`.rl{fill:#555;font-size:10px}.tl{fill:#333;font-size:10px}.lb{fill:#f4f4f4}.gl{stroke:#ddd;stroke-width:1}`,
	`.s0{fill:#bdbdbd}.s1{fill:#2ca02c}.s2{fill:#d62728}.s3{fill:#ff7f0e}.s4{fill:#e6c229}.nv{fill-opacity:.45}`,
	`.a0{stroke:#888}.a1{stroke:#2ca02c}.a2{stroke:#d62728}.a3{stroke:#e36c00}.a4{stroke:#b8960c}`,
	`.f1{fill:#7f0000}.f2{fill:#1f3f8f}.f3{fill:#a0522d}.f4{fill:#c71585}.f5{fill:#006d6d}.f6{fill:#555}`,
	`.v0{fill:#c6dbef}.v1{fill:#1f77b4}.v2{fill:#d62728}.v3{fill:#5b0f0f}.md{fill:#333}`,
	`.po0{fill:#d9ead3}.po1{fill:#fde9b6}.po2{fill:#cfcfee}.nm{fill:#d62728}.mx{fill:#969696}`,
	palette(),
	`path{fill:none;vector-effect:non-scaling-stroke}.al{stroke-width:1.6}.th{stroke:#333;stroke-dasharray:3 2}`,
	`.fo{stroke:#000;stroke-width:2}.nc{stroke:#d62728;stroke-width:2;stroke-dasharray:5 3}.nf{stroke:#d62728;stroke-width:2}.rc{stroke:#2ca02c;stroke-width:2}`,
	`.dl{font-size:11px;font-weight:bold}.cl{fill:#fff;font-size:10px;pointer-events:none}`,
	`.wk{fill:#a1d99b}.wf{fill:#d62728}.wl{fill:#7f0000;stroke:#000;stroke-width:1;vector-effect:non-scaling-stroke}`,
	`.lw{stroke:#7b2cbf;stroke-width:5}.sf{stroke:#ff7f0e;stroke-width:3}.sr{stroke:#2ca02c;stroke-width:3;stroke-dasharray:3 2}`,
	`.ll{fill:#4a148c;font-size:10px;font-weight:bold;pointer-events:none}`,
}, "")

func palette() string {
	var b strings.Builder
	for i, c := range nodePalette {
		fmt.Fprintf(&b, ".n%d{fill:%s}", i, c)
	}
	return b.String()
}
