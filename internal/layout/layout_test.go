package layout

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/failsim/failsim/"

// rank places each package of the module in a layer: a package may import only packages of a
// lower rank, so the two adapters (sim and monitor), of one rank, may not import each other.
var rank = map[string]int{
	// The vocabulary: names, file errors, bounded input.
	"conf": 0, "fileline": 0, "internal/input": 0, "internal/output": 0, "fault": 0, "internal/layout": 0, "internal/cputime": 0,
	// The properties' names and specs, as a timeline and failsim check state them.
	"propspec": 0,
	"statemap": 1,
	// The decision core: pure, and never aware of how it is driven.
	// fence decides on the cluster's state and merges its copies; group decides the managers'
	// views, quorum and which copy a merge adopts, beside fence and knowing none of it; repl
	// builds on fence's Cluster and candidate rule; cluster composes the three per node.
	"fence": 2, "group": 2, "repl": 3,
	// Orchestrator's rules, pure functions of what it read, beside Tungsten's engine.
	"orchestrator": 2,
	// The vocabulary of a run: its actions, outcomes, events and echoes.
	"act": 4,
	// The incident format, read and written, with the clock syntax of everything that tells a
	// run; and the decision core's cluster, which composes fence, group and repl per node.
	"timeline": 5, "cluster": 5,
	// A Tungsten support bundle read, and the timeline it implies.
	"bundle": 6,
	// One run's decision core under Tungsten's rules (the engine and the group behind one
	// Ready), and the one scheduler, which drives any core through drive.Machine: of one rank,
	// neither imports the other.
	"core": 6, "drive": 6,
	// One run's decision core under Orchestrator's rules, beside Tungsten's.
	"orchcore": 6,
	// Candidate statemaps judged beside the live one: more cores behind the one drive.Machine.
	"shadow": 7,
	// What a run is judged and told by, in the order they build on each other.
	"faultmodel": 7, "narrate": 7,
	// The fault model's timing, in closed form; property testing's properties; the benchmarks' day.
	"timing": 8, "property": 8, "internal/daytimeline": 8,
	"expect": 10,
	"report": 11,
	// The picture of a run, drawn from what it observed and its report.
	"htmlreport": 12,
	// The wire: the fault-injecting proxy, the servers of the live tests, and what the live
	// side does to real replicated servers (replica) and the application's writes (writer).
	"proxy": 12, "internal/embedded": 12, "internal/fakemysql": 12, "replica": 12, "writer": 12,
	// watch's flight recorder: what the live engine decided from, kept as timelines.
	"record": 12,
	// What starts the built-in server (failsim-mysqld, which holds internal/embedded) as a child.
	"internal/mysqld": 12,
	// Throwaway MariaDB servers for tests; a cluster's replication links are proxy nodes.
	"internal/mariadb": 13,
	// The two adapters around the one scheduler: the simulator, in virtual time, and the live
	// runtime, on real probes through the proxy.
	"sim": 13, "monitor": 13,
	// A timeline played live on the live adapter and judged against the simulator; the servers
	// the live tests share (only tests import it).
	"monitor/livereplay": 14, "internal/liveservers": 14,
	// The conformance test of the Orchestrator model against a real Orchestrator (tests only).
	"internal/orchlive": 14,
	// Property testing, on the simulator.
	"check": 14,
	// Sweeping a statemap's settings over a grid, on check's traces.
	"sweep": 15,
	// The commands.
	"cmd/failsim": 16, "cmd/failsim-mysqld": 16,
}

// pure are the packages of the decision core, the scheduler and the timing arithmetic: no I/O,
// no clock, no goroutines of their own. Neither they nor a package of the module they depend on
// may import one of effects. (A library they use may: the statemap's properties parser can fetch a URL, which
// failsim never asks of it.)
var (
	pure    = []string{"act", "core", "orchestrator", "orchcore", "fence", "group", "repl", "cluster", "drive", "timing", "htmlreport", "shadow"}
	effects = []string{"net", "net/http", "os/exec", "database/sql", "github.com/go-sql-driver/mysql", "github.com/benbjohnson/clock",
		"github.com/rs/zerolog", "github.com/prometheus/client_golang/prometheus"}
)

// pkg is one package of the module: its path below the module, what it imports directly and
// every package it depends on.
type pkg struct {
	path    string
	imports []string
	deps    []string
}

// list runs go list over the module.
func list(t *testing.T) []pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages with")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		pkgs = append(pkgs, pkg{path: strings.TrimPrefix(f[0], module), imports: strings.Fields(f[1]), deps: strings.Fields(f[2])})
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages: %s", len(pkgs), out)
	}
	return pkgs
}

// TestImportsGoDown: every package of the module imports only packages of a lower rank.
func TestImportsGoDown(t *testing.T) {
	for _, p := range list(t) {
		r, ok := rank[p.path]
		if !ok {
			t.Errorf("package %s has no rank: place it in layout_test.go's table, in the layer it belongs to", p.path)
			continue
		}
		for _, imp := range p.imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if dr, known := rank[dep]; known && dr >= r {
				t.Errorf("%s (rank %d) imports %s (rank %d): imports go down the layers only", p.path, r, dep, dr)
			}
		}
	}
}

// TestNamedDirections pins, with go list -deps, the directions the layers exist for.
func TestNamedDirections(t *testing.T) {
	pkgs := list(t)
	deps, imports := map[string][]string{}, map[string][]string{}
	for _, p := range pkgs {
		deps[p.path], imports[p.path] = p.deps, p.imports
	}
	never := func(from string, on ...string) {
		d, ok := deps[from]
		if !ok {
			return // not written yet (group, repl)
		}
		for _, x := range on {
			if slices.Contains(d, x) || slices.Contains(d, module+x) {
				t.Errorf("%s depends on %s", from, x)
			}
		}
	}
	adapters := []string{"sim", "monitor", "proxy", "check", "cmd/failsim", "internal/embedded"}
	for _, p := range []string{"fence", "group", "repl", "cluster", "core", "drive", "timeline", "property", "expect", "report", "narrate", "faultmodel", "timing", "htmlreport", "shadow"} {
		never(p, adapters...)
	}
	for _, p := range pure {
		for _, d := range append([]string{module + p}, deps[p]...) {
			own, ok := strings.CutPrefix(d, module)
			if !ok {
				continue
			}
			for _, imp := range imports[own] {
				if slices.Contains(effects, imp) {
					t.Errorf("%s, which the pure %s depends on, imports %s", own, p, imp)
				}
			}
		}
	}
	// The scheduler drives a Machine: it knows neither Tungsten's group nor its cluster, so that
	// another manager's rules plug in beside core.Core.
	never("drive", "group", "cluster", "core")
	// The managers' group decides views, quorum and adoption on its own: the engine's copies
	// and their merge are fence's, and the tick arithmetic is the statemap's.
	never("group", "fence")
	// The live adapter makes the core's decisions real on probes; what a live replay adds (the
	// proxies, the promotions, the writes, the timeline, its narration) is monitor/livereplay's.
	never("monitor", "sim", "check", "proxy", "replica", "writer", "timeline", "narrate")
	never("monitor/livereplay", "sim", "check")
	// The format writes what it reads: its writer, its property specs and its clock are its own,
	// so it sits below the run it scripts and the tools that judge and tell one.
	never("timeline", "drive", "property", "narrate", "check", "faultmodel")
	never("sim", "monitor", "proxy", "check")
	never("check", "monitor", "proxy")
	never("sweep", "monitor", "proxy")
	never("proxy", "fence", "drive", "sim", "monitor")
	never("internal/mysqld", "internal/embedded")
}

// TestFailsimLinksNoServer: the failsim binary links no go-mysql-server (nor vitess under it),
// whose package initialisation would run at the start of every command; the built-in server
// is the separate program cmd/failsim-mysqld.
func TestFailsimLinksNoServer(t *testing.T) {
	var found bool
	for _, p := range list(t) {
		switch p.path {
		case "cmd/failsim":
			found = true
			for _, d := range p.deps {
				if strings.HasPrefix(d, "github.com/dolthub/") || d == module+"internal/embedded" {
					t.Errorf("cmd/failsim depends on %s: the in-process server belongs in cmd/failsim-mysqld", d)
				}
			}
		case "cmd/failsim-mysqld":
			if !slices.Contains(p.deps, "github.com/dolthub/go-mysql-server") {
				t.Errorf("cmd/failsim-mysqld does not depend on go-mysql-server: %v", p.deps)
			}
		}
	}
	if !found {
		t.Fatal("go list did not list cmd/failsim")
	}
}
