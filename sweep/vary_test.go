package sweep

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/statemap"
)

func TestParseVary(t *testing.T) {
	for _, tc := range []struct {
		in     string
		what   What
		values []int64
		spec   string
	}{
		{"login_response_timeout.threshold=1..4", Threshold, []int64{1, 2, 3, 4}, "login_response_timeout.threshold=1..4:1"},
		{"socket_connect_timeout.threshold=-1..8:3", Threshold, []int64{-1, 2, 5, 8}, "socket_connect_timeout.threshold=-1..8:3"},
		{"socket_io_error.threshold=0..0", Threshold, []int64{0}, "socket_io_error.threshold=0..0:1"},
		{"interval=1s..5s:2s", Interval, []int64{int64(time.Second), int64(3 * time.Second), int64(5 * time.Second)}, "interval=1s..5s:2s"},
		{"timeout=2s..4s", Timeout, []int64{int64(2 * time.Second), int64(3 * time.Second), int64(4 * time.Second)}, "timeout=2s..4s:1s"},
		{"timeout=500ms..1500ms:500ms", Timeout, []int64{int64(500 * time.Millisecond), int64(time.Second), int64(1500 * time.Millisecond)}, "timeout=500ms..1.5s:500ms"},
		{"gap-threshold=1..6", Gap, []int64{1, 2, 3, 4, 5, 6}, "gap-threshold=1..6:1"},
		{"liveness.gap-threshold=2..8:3", Gap, []int64{2, 5, 8}, "liveness.gap-threshold=2..8:3"},
		{"failsafe-threshold=1000..1000", Failsafe, []int64{1000}, "failsafe-threshold=1000..1000:1"},
		{"liveness.failsafe-threshold=3..4", Failsafe, []int64{3, 4}, "liveness.failsafe-threshold=3..4:1"},
		{"interval=1s..2500ms", Interval, []int64{int64(time.Second), int64(2 * time.Second)}, "interval=1s..2s:1s"},
	} {
		a, err := ParseVary(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if a.What != tc.what || !slices.Equal(a.Values, tc.values) || a.Spec() != tc.spec {
			t.Errorf("%s: %v %v %q, want %v %v %q", tc.in, a.What, a.Values, a.Spec(), tc.what, tc.values, tc.spec)
		}
		// The canonical form reads back to the same axis.
		b, err := ParseVary(a.Spec())
		if err != nil || !slices.Equal(a.Values, b.Values) {
			t.Errorf("%s: the spec %q reads back as %v, %v", tc.in, a.Spec(), b.Values, err)
		}
	}
	if a, _ := ParseVary("login_response_timeout.threshold=1..2"); a.Condition != statemap.LoginResponseTimeout {
		t.Errorf("condition %v, want login_response_timeout", a.Condition)
	}
}

// TestParseVaryErrors pins every message ParseVary gives.
func TestParseVaryErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                                       `"": want NAME=FROM..TO[:STEP], e.g. login_response_timeout.threshold=1..12`,
		"interval":                               `"interval": want NAME=FROM..TO[:STEP], e.g. login_response_timeout.threshold=1..12`,
		"=1..2":                                  `"=1..2": want NAME=FROM..TO[:STEP], e.g. login_response_timeout.threshold=1..12`,
		"gap-threshold=0..3":                     `gap-threshold: FROM "0": want an integer from 1 to 1000 (ticks of 10 s)`,
		"liveness.failsafe-threshold=1..1001":    `liveness.failsafe-threshold: TO "1001": want an integer from 1 to 1000 (ticks of 10 s)`,
		"gap-threshold=1..3:1s":                  `gap-threshold: STEP "1s": want an integer from 1 to 1000 (ticks of 10 s)`,
		"liveness.gap=1..3":                      `liveness.gap: unknown condition "liveness" (failsim statemap lists the conditions)`,
		"threshold=1..3":                         `threshold: want CONDITION.threshold, interval, timeout, gap-threshold or failsafe-threshold`,
		"login_respons_timeout.threshold=1..3":   `login_respons_timeout.threshold: unknown condition "login_respons_timeout" (did you mean login_response_timeout?)`,
		"ok.threshold=1..3":                      `ok.threshold: ok is fixed: it deletes alarms and has no threshold to vary`,
		"socket_io_error.action=1..3":            `socket_io_error.action: only a condition's threshold can be varied: its action is a choice, not a range`,
		"socket_io_error.state=1..3":             `socket_io_error.state: only a condition's threshold can be varied: its state is a choice, not a range`,
		"socket_io_error.limit=1..3":             `socket_io_error.limit: unknown key "limit": want socket_io_error.threshold`,
		"socket_io_error.threshold=3":            `socket_io_error.threshold: "3": want FROM..TO[:STEP]`,
		"socket_io_error.threshold=a..3":         `socket_io_error.threshold: FROM "a": want an integer from -1 to 100000000 (ticks of 10 s; -1 never)`,
		"socket_io_error.threshold=-2..3":        `socket_io_error.threshold: FROM "-2": want an integer from -1 to 100000000 (ticks of 10 s; -1 never)`,
		"socket_io_error.threshold=1..100000001": `socket_io_error.threshold: TO "100000001": want an integer from -1 to 100000000 (ticks of 10 s; -1 never)`,
		"socket_io_error.threshold=1..3:x":       `socket_io_error.threshold: STEP "x": want an integer from -1 to 100000000 (ticks of 10 s; -1 never)`,
		"socket_io_error.threshold=1..3:0":       `socket_io_error.threshold: STEP 0: want a step above 0`,
		"socket_io_error.threshold=1..3:-1":      `socket_io_error.threshold: STEP -1: want a step above 0`,
		"socket_io_error.threshold=5..3":         `socket_io_error.threshold: FROM 5 is above TO 3`,
		"socket_io_error.threshold=0..1000":      `socket_io_error.threshold: 1001 values, more than the 1000 an axis may take: use a larger STEP`,
		"interval=1..3":                          `interval: FROM "1": want a duration from 1ms to 24h, e.g. 3s`,
		"interval=0s..3s":                        `interval: FROM "0s": want a duration from 1ms to 24h, e.g. 3s`,
		"timeout=1s..25h":                        `timeout: TO "25h": want a duration from 1ms to 24h, e.g. 3s`,
		"timeout=1s..2s:0s":                      `timeout: STEP "0s": want a duration from 1ms to 24h, e.g. 3s`,
		"timeout=1ms..2s:1ms":                    `timeout: 2000 values, more than the 1000 an axis may take: use a larger STEP`,
	} {
		_, err := ParseVary(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseVary(%q): %v\nwant %s", in, err, want)
		}
	}
}

// FuzzParseVary: no input makes ParseVary panic, and what it accepts is a sorted, bounded axis
// whose canonical form reads back the same.
func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"login_response_timeout.threshold=1..12", "interval=1s..5s:1s", "timeout=1ms..24h:1h",
		"socket_io_error.threshold=-1..100000000:1000000", "x=..:", "gap-threshold=1..2", "liveness.failsafe-threshold=1..1000:7", "a.b=1..2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseVary(s)
		if err != nil {
			return
		}
		if len(a.Values) == 0 || len(a.Values) > MaxValues || !slices.IsSorted(a.Values) {
			t.Fatalf("%q: values %v", s, a.Values)
		}
		b, err := ParseVary(a.Spec())
		if err != nil || !slices.Equal(a.Values, b.Values) {
			t.Fatalf("%q: spec %q reads back as %v, %v", s, a.Spec(), b.Values, err)
		}
	})
}
