package fault

import "testing"

func TestNearest(t *testing.T) {
	for s, want := range map[string]string{
		"freez": "freeze", "FREEZ": "freeze", "stal": "stall", "rest": "reset", "blackhol": "blackhole",
		"refuse": "refuse", "hostdwn": "hostdown", "slwo": "slow", "err": "error",
	} {
		if k, ok := Nearest(s); !ok || k.String() != want {
			t.Errorf("Nearest(%q) = %v, %v; want %s", s, k, ok, want)
		}
	}
	for _, s := range []string{"explode", "melt", "x", ""} {
		if k, ok := Nearest(s); ok {
			t.Errorf("Nearest(%q) = %v: want no suggestion", s, k)
		}
	}
}
