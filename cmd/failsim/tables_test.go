package main

import (
	"bytes"
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/statemap"
)

// The JSON of failsim statemap, faults and timing is one well-formed object whose rows decode
// into the documented fields (docs/timing.md), and the same input gives the same bytes.
func TestTablesJSON(t *testing.T) {
	run := func(args ...string) []byte {
		t.Helper()
		var out, errOut bytes.Buffer
		m := &Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}
		if code := m.Exit(context.Background(), args); code != 0 {
			t.Fatalf("failsim %v: exit %d: %s", args, code, errOut.String())
		}
		return out.Bytes()
	}
	var sm struct {
		Tick       float64    `json:"tick_s"`
		Conditions []ruleJSON `json:"conditions"`
	}
	decode(t, run("statemap", "--format", "json"), &sm)
	if sm.Tick != 10 || len(sm.Conditions) != 22 || sm.Conditions[13].Condition != "socket_io_error" || sm.Conditions[13].Expires == nil {
		t.Errorf("statemap: %+v", sm)
	}

	var faults struct {
		Timeout float64     `json:"timeout_s"`
		Faults  []faultJSON `json:"faults"`
	}
	decode(t, run("faults", "--format", "json", "--timeout", "2s"), &faults)
	rows := len(faultmodel.Table(statemap.Default(), 2*time.Second)) // the toxics' rows included
	if faults.Timeout != 2 || len(faults.Faults) != rows || rows < 17 || faults.Faults[4].Fault != "freeze" || faults.Faults[4].After != 2 {
		t.Errorf("faults: %+v", faults)
	}

	var tm struct {
		Interval float64      `json:"interval_s"`
		Timeout  float64      `json:"timeout_s"`
		Tick     float64      `json:"tick_s"`
		Faults   []timingJSON `json:"faults"`
	}
	first := run("timing", "--format", "json", "--interval", "2.5s")
	decode(t, first, &tm)
	if tm.Interval != 2.5 || tm.Timeout != 5 || tm.Tick != 10 || len(tm.Faults) != len(faultmodel.Table(statemap.Default(), 5*time.Second)) {
		t.Fatalf("timing: %d rows", len(tm.Faults))
	}
	freeze := tm.Faults[4]
	if freeze.Fault != "freeze" || *freeze.StateChange != (spanJSON{5, 7.5}) || *freeze.Fence != (spanJSON{75, 87.5}) {
		t.Errorf("timing freeze: %+v %+v %+v", freeze, freeze.StateChange, freeze.Fence)
	}
	if heal := tm.Faults[0]; heal.StateChange != nil || heal.Alarm != nil || heal.Fence != nil {
		t.Errorf("timing heal: %+v", heal)
	}
	if again := run("timing", "--format", "json", "--interval", "2.5s"); !bytes.Equal(first, again) {
		t.Error("timing --format json: two runs, two outputs")
	}
}

func decode(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value:\n%s", data)
	}
}

// The exit codes of timing and statemap diff: 0, or 2 for bad input or usage.
func TestTimingExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"timing"}, 0},
		{[]string{"timing", "--interval", "0s"}, 2},
		{[]string{"timing", "--statemap", "/dev/zero"}, 2},
		{[]string{"statemap", "diff", "", "../../conf/examples/aggressive.properties", "../../testdata/incidents/ebs-stall.timeline"}, 0},
		{[]string{"statemap", "diff", ""}, 2},
		{[]string{"statemap", "diff", "", "", "/dev/zero"}, 2},
		{[]string{"statemap", "x"}, 2},
	} {
		var out, errOut bytes.Buffer
		m := &Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}
		if got := m.Exit(context.Background(), c.args); got != c.want {
			t.Errorf("failsim %q: exit %d, want %d\nstderr: %s", c.args, got, c.want, errOut.String())
		}
	}
}

// A signal before timing or statemap diff has read its inputs stops it with the signal's exit
// code and says so.
func TestTimingInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalled{syscall.SIGINT})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"timing", "--statemap", "../../conf/examples/aggressive.properties"}, "failsim: error: timing interrupted by SIGINT: the output above is incomplete\n"},
		{[]string{"statemap", "diff", "../../conf/examples/aggressive.properties", ""}, "failsim: error: statemap diff interrupted by SIGINT: the output above is incomplete\n"},
		{[]string{"statemap", "diff", "", "", "../../testdata/incidents/ebs-stall.timeline"}, "failsim: error: statemap diff interrupted by SIGINT: the output above is incomplete\n"},
	} {
		var out, errOut bytes.Buffer
		m := &Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}
		if code := m.Exit(ctx, c.args); code != 130 || errOut.String() != c.want {
			t.Errorf("failsim %q: exit %d, stderr %q; want 130, %q", c.args, code, errOut.String(), c.want)
		}
	}
}
