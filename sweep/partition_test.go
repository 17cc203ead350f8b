package sweep

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// partitionConfig is a small run of n partition traces only.
func partitionConfig(t testing.TB, n int, vary ...string) Config {
	cfg := config(t, 0, vary...)
	cfg.Partition = n
	return cfg
}

// TestPartitionDeterministic: a partition sweep gives the same files, byte for byte, on one
// worker and on four, and another seed gives other traces.
func TestPartitionDeterministic(t *testing.T) {
	for _, vary := range [][]string{
		{"gap-threshold=2..4", "liveness.failsafe-threshold=2..4"},
		{"login_response_timeout.threshold=2..10:4"}, // statemap settings alone are allowed
	} {
		cfg := partitionConfig(t, 30, vary...)
		cfg.Workers = 1
		one := files(t, run(t, cfg))
		cfg.Workers = 4
		sameFiles(t, strings.Join(vary, " "), one, files(t, run(t, cfg)))
		cfg.Seed = 2
		if other := files(t, run(t, cfg)); bytes.Equal(one[0].Data, other[0].Data) {
			t.Errorf("%s: seeds 1 and 2 gave the same sweep.csv", vary)
		}
	}
}

// TestPartitionLivenessRule: the rule check found, that no-split-brain holds (without
// witnesses) exactly when failsafe-threshold < gap-threshold, shows in the sweep: every point
// with gap-threshold < failsafe-threshold has more split-brain seconds, in all over the same
// traces, than every point with gap-threshold > failsafe-threshold.
func TestPartitionLivenessRule(t *testing.T) {
	res := run(t, partitionConfig(t, 60, "gap-threshold=2..5", "failsafe-threshold=2..5"))
	var unsafe, safe []*Point
	for _, p := range res.Points {
		if p.Partition == nil || p.Partition.Traces != 60 {
			t.Fatalf("%v: partition stats %+v, want 60 traces", p.Values, p.Partition)
		}
		if p.Benign != nil || p.Fatal != nil {
			t.Fatalf("%v: benign or fatal stats on a partition run", p.Values)
		}
		switch gap, failsafe := p.Values[0], p.Values[1]; {
		case gap < failsafe:
			unsafe = append(unsafe, p)
		case gap > failsafe:
			safe = append(safe, p)
		}
	}
	for _, u := range unsafe {
		for _, s := range safe {
			if u.Partition.SplitBrainTotal <= s.Partition.SplitBrainTotal {
				t.Errorf("gap,failsafe %v: %gs of split brain, not more than %gs at %v", u.Values, u.Partition.SplitBrainTotal, s.Partition.SplitBrainTotal, s.Values)
			}
		}
	}
	// The point in force (3, 3) is on the grid, and its stats are consistent.
	if in := res.InForce; !in.InForce || in.Values[0] != 3 || in.Values[1] != 3 {
		t.Errorf("in force: %v", in.Values)
	}
	for _, p := range res.Points {
		s := p.Partition
		if s.SplitBrainP50 > s.SplitBrainP95 || s.SplitBrainP95 > s.SplitBrainMax || s.SplitBrainMax > s.SplitBrainTotal ||
			(s.SplitBrain == 0) != (s.SplitBrainTotal == 0) || s.Share != float64(s.SplitBrain)/60 ||
			s.NoWriterP50 > s.NoWriterP95 || s.NoWriterP95 > s.NoWriterMax || s.NoWriterAtEnd > s.Traces ||
			(s.NoWriterAtEnd > 0 && s.NoWriterMax == 0) {
			t.Errorf("%v: inconsistent %+v", p.Values, s)
		}
	}
}

// TestLivenessNeedsPartitions: a liveness setting is refused on a run with benign or fatal
// traces, where it acts on nothing.
func TestLivenessNeedsPartitions(t *testing.T) {
	for _, cfg := range []Config{config(t, 5, "gap-threshold=1..3"), partitionConfig(t, 0, "failsafe-threshold=1..3")} {
		_, err := Run(context.Background(), cfg)
		if !errors.Is(err, ErrNeedsPartitions) {
			t.Errorf("%v: %v, want ErrNeedsPartitions", cfg.Grid.Axes[0].Name, err)
		}
	}
	cfg := config(t, 5, "gap-threshold=1..3")
	cfg.Partition = 5
	if _, err := Run(context.Background(), cfg); err == nil || err.Error() != "gap-threshold: "+ErrNeedsPartitions.Error() {
		t.Errorf("with benign, fatal and partition traces: %v", err)
	}
}

// TestPartitionSharesMerge: a partition sweep split in shares merges into the run done at
// once, and a share of a partition run does not merge with one of a benign run.
func TestPartitionSharesMerge(t *testing.T) {
	cfg := partitionConfig(t, 15, "gap-threshold=2..4", "failsafe-threshold=3..4")
	whole := files(t, run(t, cfg))
	share := func(cfg Config, k, n int) ShareFile {
		cfg.Shard = Shard{K: k, N: n}
		sh, err := Compute(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		data, err := sh.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return ShareFile{Name: FileName(cfg.Shard), Data: data}
	}
	res, err := MergeShares([]ShareFile{share(cfg, 1, 2), share(cfg, 0, 2)})
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "2 partition shares merged", whole, files(t, res))

	other := config(t, 15, "login_response_timeout.threshold=2..4")
	cfg = partitionConfig(t, 15, "login_response_timeout.threshold=2..4")
	if _, err := MergeShares([]ShareFile{share(cfg, 0, 2), share(other, 1, 2)}); err == nil || !strings.Contains(err.Error(), "partition_traces") {
		t.Errorf("a partition share and a benign one: %v, want partition_traces named", err)
	}
}

// TestPartitionClientView: with a workload, every point of a partition sweep measures the
// client's view over the partition traces, and it shows the two sides of the liveness rule.
// With failsafe-threshold below gap-threshold every manager shuns its datasource: no split
// brain, so no acknowledged write is lost, but the writes fail for most of every trace. With
// gap-threshold below failsafe-threshold both sides keep a writable master through the
// windows: the writes go on, and the merge loses what the overwritten side acknowledged.
// Without a workload nothing of it is measured or written; a run split in shares merges into
// the run done at once, the client's view included.
func TestPartitionClientView(t *testing.T) {
	cfg := partitionConfig(t, 30, "gap-threshold=2..4", "failsafe-threshold=2..4:2")
	cfg.Workload = workload(t)
	res := run(t, cfg)
	var shuns, windows []*Point
	for _, p := range res.Points {
		c := p.Partition.Client
		if c == nil {
			t.Fatalf("point %v: no client view", p.Values)
		}
		if c.UnavailableP50 > c.UnavailableP95 || c.UnavailableP95 > c.UnavailableMax || c.LostP95 > c.Lost || c.UnavailableMax <= 0 {
			t.Errorf("point %v: inconsistent %+v", p.Values, c)
		}
		switch gap, failsafe := p.Values[0], p.Values[1]; {
		case failsafe < gap:
			shuns = append(shuns, p)
		case gap < failsafe:
			windows = append(windows, p)
		}
	}
	if len(shuns) == 0 || len(windows) == 0 {
		t.Fatalf("%d points with failsafe < gap, %d with gap < failsafe", len(shuns), len(windows))
	}
	for _, s := range shuns {
		if s.Partition.SplitBrain != 0 || s.Partition.Client.Lost != 0 {
			t.Errorf("gap,failsafe %v: %d split-brain traces, %d writes lost: want none with everyone shunned", s.Values, s.Partition.SplitBrain, s.Partition.Client.Lost)
		}
		for _, w := range windows {
			sc, wc := s.Partition.Client, w.Partition.Client
			if wc.Lost <= sc.Lost || sc.UnavailableP50 <= wc.UnavailableP50 {
				t.Errorf("gap,failsafe %v: %d lost, unavailable p50 %gs; at %v: %d lost, %gs: want fewer lost and longer unavailable where all shun",
					s.Values, sc.Lost, sc.UnavailableP50, w.Values, wc.Lost, wc.UnavailableP50)
			}
		}
	}
	head := strings.SplitN(string(res.CSV()), "\n", 2)[0]
	if !strings.HasSuffix(head, ",no_writer_at_end,partition_unavailable_p50_s,partition_unavailable_p95_s,partition_unavailable_max_s,partition_lost,partition_lost_p95") {
		t.Errorf("sweep.csv's head ends with no partition client columns: %s", head)
	}
	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if line := strings.SplitN(text.String(), "\n", 4)[2]; !strings.Contains(line, "at end  unavail p50  p95") || strings.Contains(line, "benign") {
		t.Errorf("the summary's head: %q, want the partition client columns and no benign ones", line)
	}

	// The same bytes whatever the workers.
	one := cfg
	one.Workers = 1
	sameFiles(t, "a partition run with a workload on one worker", files(t, res), files(t, run(t, one)))

	// Shares carry the client's view.
	var shares []ShareFile
	for k := range 3 {
		c := cfg
		c.Shard = Shard{K: k, N: 3}
		sh, err := Compute(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		data, err := sh.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		shares = append(shares, ShareFile{Name: FileName(c.Shard), Data: data})
	}
	merged, err := MergeShares(shares)
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "3 partition shares with a workload merged", files(t, res), files(t, merged))

	cfg.Workload = nil
	plain := run(t, cfg)
	for _, p := range plain.Points {
		if p.Partition.Client != nil {
			t.Fatalf("point %v: a client view without a workload", p.Values)
		}
	}
	if s := string(plain.CSV()) + string(plain.JSON()); strings.Contains(s, "unavailable") || strings.Contains(s, "workload") {
		t.Error("a partition run without a workload writes the client's columns")
	}
}
