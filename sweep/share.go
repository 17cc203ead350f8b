package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/failsim/failsim/fileline"
)

// ShareKind is the "kind" of a share file: what failsim merge dispatches on.
const ShareKind = "failsim-sweep-share"

// Identity is a run as its share files record it: every flag and input that decides its
// result. Shares of one run have equal identities.
type Identity struct {
	Vary         []string `json:"vary"`          // each axis as NAME=FROM..TO:STEP
	Statemap     string   `json:"statemap"`      // the --statemap path; "" for the shipped defaults
	StatemapText string   `json:"statemap_text"` // its bytes
	BenignTraces int      `json:"benign_traces"` // 0: the benign family was not run
	FatalTraces  int      `json:"fatal_traces"`
	// PartitionTraces is the partition family's; 0 (left out of the JSON) when not run.
	PartitionTraces int     `json:"partition_traces,omitempty"`
	Seed            uint64  `json:"seed"`
	Nodes           int     `json:"nodes"`
	Length          string  `json:"length"`
	Interval        string  `json:"interval"` // the base checker's
	Timeout         string  `json:"timeout"`
	Incidents       []Input `json:"incidents"`
	Workload        string  `json:"workload,omitempty"` // --workload as check.Workload writes it; "" for none
}

// Input is an input file as a run records it.
type Input struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// Share is what one shard of a run computed: its points of the work list (the grid's points in
// order, then the point in force when it is none of them).
type Share struct {
	Kind        string       `json:"kind"`
	Run         Identity     `json:"run"`
	Shard       int          `json:"shard"`
	Of          int          `json:"of"`
	InForce     int          `json:"in_force"` // the index of the point in force in the work list
	Points      int          `json:"points"`   // the work list's length
	FatalFaults []string     `json:"fatal_faults"`
	Computed    []SharePoint `json:"computed"`

	replays int // the replays it took, the shortcuts' savings deducted
}

// SharePoint is one point as a share holds it.
type SharePoint struct {
	Index     int              `json:"index"`
	Values    []int64          `json:"values"`
	Benign    *BenignStats     `json:"benign,omitempty"`
	Fatal     *FatalStats      `json:"fatal,omitempty"`
	Partition *PartitionStats  `json:"partition,omitempty"`
	Incidents []IncidentResult `json:"incidents,omitempty"`
}

// FileName is the name a shard's share is written to.
func FileName(s Shard) string { return fmt.Sprintf("sweep-shard-%d-of-%d.json", s.K, s.of()) }

// Marshal encodes the share as its file holds it.
func (s *Share) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	return append(b, '\n'), err
}

// ShareFile is a share file's name and bytes, for MergeShares.
type ShareFile struct {
	Name string
	Data []byte
}

// ErrShares is wrapped by every complaint of MergeShares about the set of shares.
var ErrShares = errors.New("the shares do not make one run")

// MergeShares joins the N shares of one run into the result the run gives unsharded. It
// refuses a file that is no sweep share (with file:line for broken JSON), shares of another
// run or another N, a shard given twice and a missing one.
func MergeShares(files []ShareFile) (*Result, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no share given", ErrShares)
	}
	shares := make([]*Share, len(files))
	for i, f := range files {
		s, err := parseShare(f)
		if err != nil {
			return nil, err
		}
		shares[i] = s
	}
	first, firstName := shares[0], files[0].Name
	seen := make([]string, first.Of)
	for i, s := range shares {
		name := files[i].Name
		if s.Of != first.Of {
			return nil, fmt.Errorf("%w: %s is shard %d of %d, %s of %d", ErrShares, name, s.Shard, s.Of, firstName, first.Of)
		}
		if d := differences(first.Run, s.Run); len(d) > 0 {
			return nil, fmt.Errorf("%w: %s is of another run than %s: its %s differ", ErrShares, name, firstName, strings.Join(d, ", "))
		}
		if s.InForce != first.InForce || s.Points != first.Points || !slices.Equal(s.FatalFaults, first.FatalFaults) {
			return nil, fmt.Errorf("%w: %s is of another run than %s: its points differ", ErrShares, name, firstName)
		}
		if seen[s.Shard] != "" {
			return nil, fmt.Errorf("%w: shard %d of %d is given twice: %s and %s", ErrShares, s.Shard, s.Of, seen[s.Shard], name)
		}
		seen[s.Shard] = name
	}
	var missing []string
	for k, n := range seen {
		if n == "" {
			missing = append(missing, fmt.Sprint(k))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: shard %s of %d missing", ErrShares, strings.Join(missing, ", "), first.Of)
	}
	slices.SortFunc(shares, func(a, b *Share) int { return a.Shard - b.Shard })
	return assemble(shares)
}

// parseShare reads one share file.
func parseShare(f ShareFile) (*Share, error) {
	var s Share
	dec := json.NewDecoder(bytes.NewReader(f.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, jsonError(f, err)
	}
	if dec.More() {
		return nil, fileline.Errorf(f.Name, lineAt(f.Data, dec.InputOffset()), "more than one JSON value")
	}
	if s.Kind != ShareKind {
		return nil, fileline.Errorf(f.Name, 0, "kind %q: not a failsim sweep share (kind %q)", s.Kind, ShareKind)
	}
	if s.Of < 1 || s.Shard < 0 || s.Shard >= s.Of {
		return nil, fileline.Errorf(f.Name, 0, "shard %d of %d: want 0 <= shard < of", s.Shard, s.Of)
	}
	if s.Points < 1 || s.InForce < 0 || s.InForce >= s.Points {
		return nil, fileline.Errorf(f.Name, 0, "%d points with the one in force at %d: want in force among them", s.Points, s.InForce)
	}
	for _, p := range s.Computed {
		if p.Index < 0 || p.Index >= s.Points || p.Index%s.Of != s.Shard {
			return nil, fileline.Errorf(f.Name, 0, "point %d is not one of shard %d of %d's", p.Index, s.Shard, s.Of)
		}
	}
	return &s, nil
}

// jsonError places a decoding error at its line.
func jsonError(f ShareFile, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fileline.Errorf(f.Name, lineAt(f.Data, syn.Offset), "broken JSON: %v", err)
	case errors.As(err, &typ):
		return fileline.Errorf(f.Name, lineAt(f.Data, typ.Offset), "%s: want a JSON %s, got %s", typ.Field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fileline.Errorf(f.Name, lineAt(f.Data, int64(len(f.Data))), "broken JSON: %v", err)
	}
	return fileline.Errorf(f.Name, 0, "%v", err)
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// differences names the fields in which two identities differ.
func differences(a, b Identity) []string {
	var ma, mb map[string]json.RawMessage
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	json.Unmarshal(ja, &ma)
	json.Unmarshal(jb, &mb)
	var out []string
	for k, v := range ma {
		if !bytes.Equal(v, mb[k]) {
			out = append(out, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok { // a field one leaves out (omitempty) and the other has
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// assemble builds the result from the shares of every shard, in shard order.
func assemble(shares []*Share) (*Result, error) {
	s0 := shares[0]
	var axes []Axis
	for _, v := range s0.Run.Vary {
		a, err := ParseVary(v)
		if err != nil {
			return nil, fmt.Errorf("%w: --vary %v", ErrShares, err)
		}
		axes = append(axes, a)
	}
	g := Grid{Axes: axes}
	if n := g.Len(); s0.Points != n && s0.Points != n+1 {
		return nil, fmt.Errorf("%w: %d points for a grid of %d", ErrShares, s0.Points, n)
	}
	pts := make([]*Point, s0.Points)
	for _, s := range shares {
		for _, sp := range s.Computed {
			if pts[sp.Index] != nil {
				return nil, fmt.Errorf("%w: point %d is given twice", ErrShares, sp.Index)
			}
			p := &Point{Values: sp.Values, Benign: sp.Benign, Fatal: sp.Fatal, Partition: sp.Partition, Incidents: sp.Incidents}
			if sp.Index < g.Len() && !slices.Equal(sp.Values, g.Point(sp.Index)) {
				return nil, fmt.Errorf("%w: point %d has values %v, the grid's are %v", ErrShares, sp.Index, sp.Values, g.Point(sp.Index))
			}
			pts[sp.Index] = p
		}
	}
	for i, p := range pts {
		if p == nil {
			return nil, fmt.Errorf("%w: point %d is in no share", ErrShares, i)
		}
	}
	pts[s0.InForce].InForce = true
	pareto(pts)
	return &Result{Run: s0.Run, Grid: g, FatalFaults: s0.FatalFaults, Points: pts[:g.Len()], InForce: pts[s0.InForce]}, nil
}
