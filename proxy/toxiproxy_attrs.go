package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/fault"
)

// A toxic's "attributes" as toxiproxy's API writes and reads them: one struct per toxic
// type, with toxiproxy's field names, order and integer units (toxics/*.go of
// Shopify/toxiproxy v2.5.0), so encoding/json writes them byte for byte as toxiproxy does
// and reads them with its rules (a missing field keeps its value, a null too, an unknown
// field is ignored). failsim's own types carry theirs in the same style; the types without
// an argument have none ({}).
//
// Inside failsim a toxic's arguments are its fault.Fault, in time.Duration: toFault and
// attrsFor convert at this edge, and only here.

// toxicAttrs is one toxic type's attributes.
type toxicAttrs interface {
	// toFault writes the attributes into f, refusing a value no fault can hold (negative,
	// or a duration past a year).
	toFault(f *fault.Fault) error
}

// maxToxicDuration is the longest duration an attribute may give: the fault package's bound.
const maxToxicDuration = 365 * 24 * time.Hour

// latencyAttrs are latency's (toxics/latency.go): each chunk held latency ± jitter ms.
type latencyAttrs struct {
	Latency int64 `json:"latency"` // ms
	Jitter  int64 `json:"jitter"`  // ms
}

// bandwidthAttrs are bandwidth's (toxics/bandwidth.go).
type bandwidthAttrs struct {
	Rate int64 `json:"rate"` // KB/s
}

// slowCloseAttrs are slow_close's (toxics/slow_close.go): the FIN held delay ms.
type slowCloseAttrs struct {
	Delay int64 `json:"delay"` // ms
}

// timeoutAttrs are timeout's (toxics/timeout.go).
type timeoutAttrs struct {
	Timeout int64 `json:"timeout"` // ms
}

// resetPeerAttrs are reset_peer's (toxics/reset_peer.go).
type resetPeerAttrs struct {
	Timeout int64 `json:"timeout"` // ms
}

// delayAttrs are failsim's slow's and delay's.
type delayAttrs struct {
	Delay int64 `json:"delay"` // ms
}

// slicerAttrs are slicer's (toxics/slicer.go).
type slicerAttrs struct {
	AverageSize   int `json:"average_size"`   // bytes
	SizeVariation int `json:"size_variation"` // bytes
	Delay         int `json:"delay"`          // µs
}

// limitDataAttrs are limit_data's (toxics/limit_data.go).
type limitDataAttrs struct {
	Bytes int64 `json:"bytes"`
}

// errorAttrs are failsim's error's: the MySQL error code of its ERR packet.
type errorAttrs struct {
	Code int64 `json:"code"`
}

// noAttrs are a type's without arguments, toxiproxy's noop's among them.
type noAttrs struct{}

// attrsFor returns the attributes of a toxic of kind f.Kind holding f's values: what the API
// writes, and what an update decodes over.
func attrsFor(f fault.Fault) toxicAttrs {
	switch f.Kind {
	case fault.Latency:
		return &latencyAttrs{Latency: ms(f.Delay), Jitter: ms(f.Jitter)}
	case fault.Bandwidth:
		return &bandwidthAttrs{Rate: f.Rate}
	case fault.SlowClose:
		return &slowCloseAttrs{Delay: ms(f.Delay)}
	case fault.Timeout:
		return &timeoutAttrs{Timeout: ms(f.Delay)}
	case fault.ResetPeer:
		return &resetPeerAttrs{Timeout: ms(f.Delay)}
	case fault.Slow, fault.Delay:
		return &delayAttrs{Delay: ms(f.Delay)}
	case fault.Slicer:
		return &slicerAttrs{AverageSize: f.Size, SizeVariation: f.Variation, Delay: int(f.Delay / time.Microsecond)}
	case fault.LimitData:
		return &limitDataAttrs{Bytes: f.Bytes}
	case fault.Error:
		return &errorAttrs{Code: int64(f.Code)}
	}
	return &noAttrs{}
}

// ms is d in whole milliseconds, toxiproxy's unit.
func ms(d time.Duration) int64 { return int64(d / time.Millisecond) }

// duration converts an attribute counted in unit into a duration, refusing one below zero
// or past a year.
func duration(field string, v int64, unit time.Duration) (time.Duration, error) {
	if v < 0 || v > int64(maxToxicDuration/unit) {
		return 0, fmt.Errorf("attributes.%s: %d is not a duration from 0 to %d %s", field, v, int64(maxToxicDuration/unit), unitName(unit))
	}
	return time.Duration(v) * unit, nil
}

func unitName(unit time.Duration) string {
	if unit == time.Microsecond {
		return "µs"
	}
	return "ms"
}

// count checks a byte count or a rate: from 0 to most.
func count(field string, v, most int64) error {
	if v < 0 || v > most {
		return fmt.Errorf("attributes.%s: %d is not a number from 0 to %d", field, v, most)
	}
	return nil
}

func (a *latencyAttrs) toFault(f *fault.Fault) (err error) {
	if f.Delay, err = duration("latency", a.Latency, time.Millisecond); err != nil {
		return err
	}
	f.Jitter, err = duration("jitter", a.Jitter, time.Millisecond)
	return err
}

func (a *bandwidthAttrs) toFault(f *fault.Fault) error {
	f.Rate = a.Rate
	return count("rate", a.Rate, 1<<40)
}

func (a *delayAttrs) toFault(f *fault.Fault) (err error) {
	f.Delay, err = duration("delay", a.Delay, time.Millisecond)
	return err
}

func (a *slowCloseAttrs) toFault(f *fault.Fault) (err error) {
	f.Delay, err = duration("delay", a.Delay, time.Millisecond)
	return err
}

func (a *timeoutAttrs) toFault(f *fault.Fault) (err error) {
	f.Delay, err = duration("timeout", a.Timeout, time.Millisecond)
	return err
}

func (a *resetPeerAttrs) toFault(f *fault.Fault) (err error) {
	f.Delay, err = duration("timeout", a.Timeout, time.Millisecond)
	return err
}

func (a *slicerAttrs) toFault(f *fault.Fault) (err error) {
	if err := count("average_size", int64(a.AverageSize), 1<<30); err != nil {
		return err
	}
	if err := count("size_variation", int64(a.SizeVariation), 1<<30); err != nil {
		return err
	}
	f.Size, f.Variation = a.AverageSize, a.SizeVariation
	f.Delay, err = duration("delay", int64(a.Delay), time.Microsecond)
	return err
}

func (a *limitDataAttrs) toFault(f *fault.Fault) error {
	f.Bytes = a.Bytes
	return count("bytes", a.Bytes, 1<<62)
}

func (a *errorAttrs) toFault(f *fault.Fault) error {
	if a.Code < 1 || a.Code > 65535 {
		return fmt.Errorf("attributes.code: %d is not a MySQL error code from 1 to 65535", a.Code)
	}
	f.Code = uint16(a.Code)
	return nil
}

func (*noAttrs) toFault(*fault.Fault) error { return nil }

// toxiproxy's refusals of a toxic's body (api.go).
var (
	errBadBody       = errors.New("bad request body")
	errInvalidStream = errors.New("stream was invalid, can be either upstream or downstream")
	errInvalidType   = errors.New("invalid toxic type")
)

// decodeNewToxic reads a new toxic as toxiproxy's AddToxicJson does: stream downstream,
// toxicity 1 and name "<type>_<stream>" unless given; a type KindOfToxicType knows
// (toxiproxy's noop among them, as heal); attributes decoded over the type's zero values.
// exists reports whether the node already has a toxic of that name, which toxiproxy checks
// before it reads the attributes. The errors are toxiproxy's: errInvalidStream,
// errInvalidType, ErrToxicExists, or errBadBody wrapped with the decoder's message.
func decodeNewToxic(body []byte, exists func(name string) bool) (Toxic, error) {
	// The body as toxiproxy reads it first: its type's name is in the decoder's errors, and
	// the attributes go into an empty struct, which refuses what is not an object or null.
	type ToxicWrapper struct {
		Attributes any     `json:"attributes"`
		Name       string  `json:"name"`
		Type       string  `json:"type"`
		Stream     string  `json:"stream"`
		Toxicity   float32 `json:"toxicity"`
	}
	w := ToxicWrapper{Attributes: &noAttrs{}, Stream: "downstream", Toxicity: 1}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&w); err != nil {
		return Toxic{}, badBody(err)
	}
	var t Toxic
	switch strings.ToLower(w.Stream) {
	case "downstream":
		t.Stream = fault.Downstream
	case "upstream":
		t.Stream = fault.Upstream
	default:
		return Toxic{}, errInvalidStream
	}
	t.Name = w.Name
	if t.Name == "" {
		t.Name = w.Type + "_" + t.Stream.String()
	}
	k, ok := KindOfToxicType(w.Type)
	if !ok {
		return Toxic{}, errInvalidType
	}
	if exists(t.Name) {
		return Toxic{}, ErrToxicExists
	}
	t.Type, t.Toxicity = w.Type, float64(w.Toxicity)
	t.Fault = fault.Fault{Kind: k, Stream: t.Stream}
	a := attrsFor(t.Fault)
	if err := decodeAttrs(body, a, nil); err != nil {
		return Toxic{}, err
	}
	if err := a.toFault(&t.Fault); err != nil {
		return Toxic{}, fmt.Errorf("%w: %v", errBadBody, err)
	}
	return t, nil
}

// decodeToxicUpdate reads the body of an update of t as toxiproxy's UpdateToxicJson does:
// the attributes decoded over t's, the toxicity kept when absent; name, type and stream
// stay (given ones are ignored).
func decodeToxicUpdate(body []byte, t Toxic) (Toxic, error) {
	a := attrsFor(t.Fault)
	toxicity := float32(t.Toxicity)
	if err := decodeAttrs(body, a, &toxicity); err != nil {
		return Toxic{}, err
	}
	if err := a.toFault(&t.Fault); err != nil {
		return Toxic{}, fmt.Errorf("%w: %v", errBadBody, err)
	}
	t.Toxicity = float64(toxicity)
	return t, nil
}

// decodeAttrs decodes the body's "attributes" over a and, when toxicity is not nil, its
// "toxicity" over *toxicity.
func decodeAttrs(body []byte, a toxicAttrs, toxicity *float32) error {
	var err error
	if toxicity == nil {
		err = json.NewDecoder(bytes.NewReader(body)).Decode(&struct {
			Attributes any `json:"attributes"`
		}{a})
	} else {
		v := struct {
			Attributes any     `json:"attributes"`
			Toxicity   float32 `json:"toxicity"`
		}{a, *toxicity}
		err = json.NewDecoder(bytes.NewReader(body)).Decode(&v)
		*toxicity = v.Toxicity
	}
	if err != nil {
		return badBody(err)
	}
	return nil
}

// badBody is toxiproxy's refusal of a body encoding/json could not decode.
func badBody(err error) error {
	return fmt.Errorf("%w: %s", errBadBody, toxiproxyTypes.Replace(err.Error()))
}

// toxiproxyTypes renames, in encoding/json's messages, the Go types failsim decodes into
// as toxiproxy's that the same body fails on, so that its 400s read as toxiproxy's do.
var toxiproxyTypes = strings.NewReplacer(
	"proxy.Proxy", "toxiproxy.Proxy",
	"proxy.ToxicWrapper", "toxics.ToxicWrapper",
	"proxy.noAttrs", "toxics.NoopToxic", "noAttrs.", "NoopToxic.",
	"proxy.latencyAttrs", "toxics.LatencyToxic", "latencyAttrs.", "LatencyToxic.",
	"proxy.bandwidthAttrs", "toxics.BandwidthToxic", "bandwidthAttrs.", "BandwidthToxic.",
	"proxy.slowCloseAttrs", "toxics.SlowCloseToxic", "slowCloseAttrs.", "SlowCloseToxic.",
	"proxy.timeoutAttrs", "toxics.TimeoutToxic", "timeoutAttrs.", "TimeoutToxic.",
	"proxy.resetPeerAttrs", "toxics.ResetToxic", "resetPeerAttrs.", "ResetToxic.",
	"proxy.slicerAttrs", "toxics.SlicerToxic", "slicerAttrs.", "SlicerToxic.",
	"proxy.limitDataAttrs", "toxics.LimitDataToxic", "limitDataAttrs.", "LimitDataToxic.",
)
