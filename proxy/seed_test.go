package proxy

import (
	"testing"
	"time"

	"github.com/failsim/failsim/internal/fakemysql"
)

// faultPattern opens conns connections one after the other through a proxy seeded with seed,
// each sending up to cmds pings, and records for each connection the command at which it was
// disconnected (0: at set-up, cmds+1: never).
func faultPattern(t *testing.T, seed uint64, conns, cmds int) []int {
	t.Helper()
	_, n := start(t, fake(t, fakemysql.Config{}), "reset p 0.2", func(c *Config) { c.Seed = seed })
	var out []int
	for range conns {
		c, err := dial(t, n.Addr())
		if err != nil {
			out = append(out, 0)
			continue
		}
		rc := newRaw(c)
		if _, _, err := rc.read(wait); err != nil {
			out = append(out, 0)
			c.Close()
			continue
		}
		rc.write(1, make([]byte, 40))
		if _, _, err := rc.read(wait); err != nil {
			t.Fatalf("login: %v", err)
		}
		at := cmds + 1
		for i := 1; i <= cmds; i++ {
			if err := rc.ping(wait); err != nil {
				if isTimeout(err) {
					t.Fatalf("ping timed out: %v", err)
				}
				at = i
				break
			}
		}
		out = append(out, at)
		c.Close()
	}
	return out
}

func TestSeedDecidesProbabilisticFaults(t *testing.T) {
	const conns, cmds = 20, 5
	a := faultPattern(t, 42, conns, cmds)
	b := faultPattern(t, 42, conns, cmds)
	c := faultPattern(t, 43, conns, cmds)
	if !equal(a, b) {
		t.Errorf("same seed, different faults:\n%v\n%v", a, b)
	}
	if equal(a, c) {
		t.Errorf("seeds 42 and 43 gave the same faults: %v", a)
	}
	hit := 0
	for _, v := range a {
		if v <= cmds {
			hit++
		}
	}
	if hit == 0 || hit == conns {
		t.Errorf("p 0.2 over %d connections faulted %d: %v", conns, hit, a)
	}
	_ = time.Second
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
