package timeline_test

import (
	"testing"

	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/timeline"
)

// BenchmarkParseDay parses the benchmarks' day: 5 nodes, 2,000 fault events at HH:MM:SS.
//
//	go test ./timeline -run '^$' -bench ParseDay -benchmem
func BenchmarkParseDay(b *testing.B) {
	text := []byte(daytimeline.Text(2000, 1))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := timeline.Parse("day.timeline", text); err != nil {
			b.Fatal(err)
		}
	}
}
