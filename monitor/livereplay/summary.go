package livereplay

import "github.com/failsim/failsim/repl"

// Output is the one JSON object a live replay prints as JSON: {"live_summary": S},
// S a Summary, a ReplSummary or an Interrupted. The fields of each are in the order of their
// JSON names, the order encoding/json gave the map the command printed before them.
type Output[S any] struct {
	LiveSummary S `json:"live_summary"`
}

// Summary is a live replay without a workload, judged against the simulated one (LiveReplay,
// Compare, CompareStates, LiveExpectations).
type Summary struct {
	Agree        bool           `json:"agree"`     // decisions and state changes agree, and the runtime ran throughout
	Decisions    []string       `json:"decisions"` // Compare's lines
	Expectations []ExpectResult `json:"expectations"`
	File         string         `json:"file"`   // the timeline's
	Notes        []string       `json:"notes"`  // what was not exercised (DescribeGap), nil for nothing
	Server       string         `json:"server"` // the server's address, or "built-in"
	Speed        float64        `json:"speed"`  // how many times faster than the timeline it ran
	States       []string       `json:"states"` // CompareStates' lines
}

// ReplSummary is a live replay with a workload, judged against the simulated one
// (ReplayReplResult). It ran at speed 1.
type ReplSummary struct {
	Agree        bool           `json:"agree"`  // ReplayReplResult.Agree
	Client       []string       `json:"client"` // CompareReplication's lines
	Decisions    []string       `json:"decisions"`
	Expectations []ExpectResult `json:"expectations"`
	File         string         `json:"file"`
	Live         Availability   `json:"live"`
	Notes        []string       `json:"notes"`
	Servers      int            `json:"servers"` // one per node
	Simulated    Availability   `json:"simulated"`
	Speed        int            `json:"speed"` // always 1: the write rate is never scaled
	States       []string       `json:"states"`
}

// Interrupted is a live replay with a workload that stopped with an error, with Notes saying
// what it healed and what it leaves on the servers (ReplayReplResult.Notes).
type Interrupted struct {
	File        string   `json:"file"`
	Interrupted bool     `json:"interrupted"` // always true
	Notes       []string `json:"notes"`
}

// Availability is one side's client's view (repl.Summary) in JSON: counts of writes, times in
// seconds since the start.
type Availability struct {
	Acknowledged   int64   `json:"acknowledged"`
	Failed         int64   `json:"failed"`
	LongestOutageS float64 `json:"longest_outage_s"` // the longest outage's length
	Lost           int64   `json:"lost"`
	Offered        int64   `json:"offered"`
	OutageFromS    float64 `json:"outage_from_s"` // the longest outage's start, 0 for none
	OutageToS      float64 `json:"outage_to_s"`
	UnavailableS   float64 `json:"unavailable_s"`
}

// NewAvailability is s as JSON, with lost its lost writes (the model's s.Lost, or the ledger's
// count live).
func NewAvailability(s repl.Summary, lost int64) Availability {
	return Availability{Acknowledged: s.Acknowledged, Failed: s.Failed, LongestOutageS: s.Outage.Length().Seconds(), Lost: lost,
		Offered: s.Offered, OutageFromS: s.Outage.From.Seconds(), OutageToS: s.Outage.To.Seconds(), UnavailableS: s.Unavailable.Seconds()}
}
