package check

import (
	"testing"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/timeline"
)

// A generated or shrunk partition can leave every member on one segment (a minority of no
// one, or a node dropped by the shrinker): one network, which a timeline writes as "partition
// heal", since the parser refuses a partition with no "|". It decides as the heal does
// (without a workload the replay is the same; with one only the application's routing is
// narrated from then on).
func TestOneNetworkPartitionIsWrittenAsHeal(t *testing.T) {
	tl := &timeline.Timeline{
		File:     "t.timeline",
		Nodes:    []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2", Role: fence.Replica}},
		Interval: timeline.DefaultInterval, Timeout: timeline.DefaultTimeout,
		Start: time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		Events: []timeline.Event{
			{At: time.Minute, Kind: timeline.Partition, Node: -1, Segments: []int{1, 1}},
			{At: 2 * time.Minute, Kind: timeline.Partition, Node: -1, Segments: []int{0, 1}},
			{At: 3 * time.Minute, Kind: timeline.Partition, Node: -1, Segments: []int{0, 0}},
		},
		End: 4 * time.Minute,
	}
	text := Timeline(tl, nil, "")
	got, err := timeline.Parse("t.timeline", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(got.Events) != 4 || got.Events[0].Segments != nil || got.Events[1].Segments == nil || got.Events[2].Segments != nil {
		t.Errorf("events %+v\n%s", got.Events, text)
	}
}
