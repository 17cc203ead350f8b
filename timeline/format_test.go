package timeline_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/failsim/failsim/timeline"
)

// written returns what of tl Format promises to write back: tl without the lines its
// statements stood on (Group only as whether there is one), without the expectations' Text, with
// each partition's groups numbered in the order of their first members, and with the start as
// its RFC 3339 time (the instant and the offset).
func written(tl *timeline.Timeline) *timeline.Timeline {
	c := *tl
	c.StatemapLine, c.ManagerLine = 0, 0
	c.Group = min(c.Group, 1)
	c.Start = time.Time{}
	c.Family += " " + tl.Start.Format(time.RFC3339Nano) // the start, compared by its text
	c.Events = make([]timeline.Event, len(tl.Events))
	for i, ev := range tl.Events {
		ev.Line = 0
		if ev.Segments != nil {
			ev.Segments = byFirstMember(ev.Segments)
		}
		c.Events[i] = ev
	}
	c.Expects = make([]timeline.Expect, len(tl.Expects))
	for i, x := range tl.Expects {
		x.Line, x.Text = 0, ""
		c.Expects[i] = x
	}
	if tl.Repl != nil {
		r := *tl.Repl
		r.WorkloadLine = 0
		r.Events = make([]timeline.ReplEvent, len(tl.Repl.Events))
		for i, e := range tl.Repl.Events {
			e.Line = 0
			r.Events[i] = e
		}
		c.Repl = &r
	}
	return &c
}

// byFirstMember renumbers a partition's segments in the order of their first members.
func byFirstMember(seg []int) []int {
	num := map[int]int{}
	out := make([]int, len(seg))
	for m, s := range seg {
		if _, ok := num[s]; !ok {
			num[s] = len(num)
		}
		out[m] = num[s]
	}
	return out
}

// roundTrip checks that timeline text data, where it parses, is written by Format as text that
// Parse reads back to the same timeline, and that Format writes that timeline as the same text.
// It reports whether data parsed.
func roundTrip(t *testing.T, name string, data []byte) bool {
	t.Helper()
	tl, err := timeline.Parse(name, data)
	if err != nil {
		return false
	}
	text := timeline.Format(tl)
	back, err := timeline.Parse(name, text)
	if err != nil {
		t.Fatalf("%s: Format wrote what Parse refuses: %v\n%s\nfrom:\n%s", name, err, text, data)
	}
	if a, b := written(tl), written(back); !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: read back differently:\n%s\nwas  %+v\nnow  %+v\nfrom:\n%s", name, text, a, b, data)
	}
	if again := timeline.Format(back); !bytes.Equal(again, text) {
		t.Fatalf("%s: Format of what it wrote differs:\n%s\nthen:\n%s", name, text, again)
	}
	return true
}

// shipped returns every timeline the repository ships: the rules' and the incidents', every
// *.timeline of the CLI's scripts, and the parser's fuzz corpus, by name. must says which of
// them must parse (the rules and incidents).
func shipped(t testing.TB) (files map[string][]byte, must map[string]bool) {
	files, must = map[string][]byte{}, map[string]bool{}
	for _, pat := range []string{"../sim/testdata/rules/*.timeline", "../testdata/incidents/*.timeline"} {
		paths, err := filepath.Glob(pat)
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: %v, %d files", pat, err, len(paths))
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files[p], must[p] = data, true
		}
	}
	scripts, err := filepath.Glob("../cmd/failsim/testdata/script/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("scripts: %v, %d files", err, len(scripts))
	}
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".timeline") {
				files[s+"/"+f.Name] = f.Data
			}
		}
	}
	corpus, err := filepath.Glob("testdata/fuzz/FuzzParseTimeline/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range corpus {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := fuzzValue(data)
		if !ok {
			t.Fatalf("%s: not a []byte fuzz value", p)
		}
		files[p] = v
	}
	return files, must
}

// fuzzValue reads the one []byte value of a fuzz corpus file.
func fuzzValue(data []byte) ([]byte, bool) {
	_, v, ok := strings.Cut(string(data), "\n")
	v = strings.TrimSpace(v)
	v, ok2 := strings.CutPrefix(v, "[]byte(")
	v, ok3 := strings.CutSuffix(v, ")")
	if !ok || !ok2 || !ok3 {
		return nil, false
	}
	s, err := strconv.Unquote(v)
	return []byte(s), err == nil
}

// Every timeline the repository ships, where it parses, reads back the same from what Format
// writes of it.
func TestFormatRoundTrip(t *testing.T) {
	files, must := shipped(t)
	parsed := 0
	for name, data := range files {
		// A name in the file's folder, so that its statemap resolves alike both ways.
		if roundTrip(t, name, data) {
			parsed++
		} else if must[name] {
			_, err := timeline.Parse(name, data)
			t.Errorf("%s does not parse: %v", name, err)
		}
	}
	if parsed < 120 {
		t.Errorf("only %d of %d shipped timelines parsed", parsed, len(files))
	}
}

// What Format writes of statements in each of their forms, and of times no clock time on the
// start's day reads back as.
func TestFormat(t *testing.T) {
	in := `cluster db1:master:2 db2:replica w:witness db3:replica:1
start 2024-05-01T21:00:00+02:00
checker timeout=4s
liveness failsafe-threshold=4
policy manual
statemap ../conf/x.properties
workload writes=5/100ms near db2
replication semisync lag-cap=30s
+1500ms db2 lag 5s
+0s partition w db2 | db1 db3
21:01:00 partition heal
+10s partition managers db1 | w db2 db3
+10s partition heal
+3h db1 slow 8s
expect failover of db1 after 2024-05-01T21:00:00.25+02:00 by 2024-05-02T01:00:00+02:00
expect db2 shunned
expect property detects-death-within=90s
expect lost writes at most 0
expect split-brain at most 0s
expect primary db3 w db1 at 21:01:00
`
	want := `cluster db1:master:2 db2:replica:2 db3:replica:1 w:witness
checker interval=3s timeout=4s
start 2024-05-01T21:00:00+02:00
liveness failsafe-threshold=4
statemap ../conf/x.properties
policy manual
workload writes=5/100ms deadline=2s near db2
replication semisync lag-cap=30s

+1.5s db2 lag 5s
+0s partition db1 db3 | db2 w
21:01:00 partition heal
21:01:10 partition managers db1 | db2 db3 w
21:01:20 partition heal
+3h0m0s db1 slow 8s

expect failover of db1 after 2024-05-01T21:00:00.25+02:00 by 2024-05-02T01:00:00+02:00
expect db2 shunned
expect property detects-death-within 90s
expect lost writes at most 0
expect no split-brain
expect primary db1 db3 w at 21:01:00
`
	tl, err := timeline.Parse("in/a.timeline", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(timeline.Format(tl)); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	roundTrip(t, "in/a.timeline", []byte(in))
}

// FuzzFormat: whatever parses reads back the same from what Format writes of it.
func FuzzFormat(f *testing.F) {
	files, _ := shipped(f)
	for _, data := range files {
		f.Add(data)
	}
	f.Add([]byte("cluster a:master b:replica\nstart 9999-12-31T23:59:59Z\n+100y a refuse\n"))
	f.Add([]byte(fmt.Sprintf("cluster a:master b:replica\nstart 23:59:59.999999999\n00:00:00 a stall\n%s cluster end\n", "+1ns")))
	f.Add([]byte("cluster a:master b:replica w:witness\n00:00:01 partition managers a | b w\n00:00:09 partition managers w | a b\n+1s partition heal\n"))
	f.Add([]byte("cluster managers:master b:replica\n00:00:01 partition managers | b\n"))
	f.Add([]byte("cluster a:master b:replica w:witness\npromotion b=prefer\ndatacenter a=x b=y\nmanager orchestrator near w config o.json\n00:00:01 a refuse\n"))
	f.Add([]byte("cluster a:master b:replica\n+1s a bandwidth 10KB/s upstream\n+1s b slicer 64 variation 16 delay 10us\n+1s a latency 200ms jitter 50ms\n+1s b timeout 0 downstream\n+1s a reset-peer\n+1s a limit-data 4096 upstream\n+1s b slow-close 2s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, "fuzz/f.timeline", data)
	})
}

// TestFormatManager: the manager statement and its config are written back.
func TestFormatManager(t *testing.T) {
	data := []byte("cluster db1:master db2:replica\nmanager orchestrator config conf/o.json near db2\n\n00:00:10 db1 refuse\n")
	if !roundTrip(t, "dir/m.timeline", data) {
		t.Fatal("did not parse")
	}
	tl, _ := timeline.Parse("dir/m.timeline", data)
	if text := string(timeline.Format(tl)); !strings.Contains(text, "\nmanager orchestrator config conf/o.json near db2\n") {
		t.Errorf("written:\n%s", text)
	}
}

// TestFormatPerNode: promotion rules and data centres are written back.
func TestFormatPerNode(t *testing.T) {
	data := []byte("cluster db1:master db2:replica db3:replica\npromotion db3=must_not db2=prefer\ndatacenter db1=east db3=west\n")
	if !roundTrip(t, "p.timeline", data) {
		t.Fatal("did not parse")
	}
	tl, _ := timeline.Parse("p.timeline", data)
	if text := string(timeline.Format(tl)); !strings.Contains(text, "\npromotion db2=prefer db3=must_not\ndatacenter db1=east db3=west\n") {
		t.Errorf("written:\n%s", text)
	}
}

// FormatCommented writes each comment before its statement, a line break as a new comment
// line and bad UTF-8 as U+FFFD, and what it writes parses back to what Format writes.
func TestFormatCommented(t *testing.T) {
	in := "cluster db1:master db2:replica\nstart 10:00:00\n10:01:00 db1 refuse\n10:02:00 db1 heal\nexpect db1 failed by 10:01:10\nexpect db2 master at 10:01:30\n"
	tl, err := timeline.Parse("a.timeline", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	c := timeline.Comments{
		Head:    []string{"imported"},
		Events:  map[int][]string{1: {"x.log:7: healed\nsecond line"}},
		Expects: map[int][]string{0: {"bad \xff byte"}},
		Tail:    []string{"not imported:", ""},
	}
	want := `# imported
cluster db1:master db2:replica
checker interval=3s timeout=5s
start 1970-01-01T10:00:00Z

10:01:00 db1 refuse
# x.log:7: healed
# second line
10:02:00 db1 heal

# bad ` + "\uFFFD" + ` byte
expect db1 failed by 10:01:10
expect db2 master at 10:01:30

# not imported:
#
`
	got := timeline.FormatCommented(tl, c)
	if string(got) != want {
		t.Errorf("FormatCommented:\n%s\nwant:\n%s", got, want)
	}
	back, err := timeline.Parse("a.timeline", got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(timeline.Format(back), timeline.Format(tl)) {
		t.Errorf("read back differs:\n%s", timeline.Format(back))
	}
	if !bytes.Equal(timeline.FormatCommented(tl, timeline.Comments{}), timeline.Format(tl)) {
		t.Error("no comments: not Format's bytes")
	}
}
