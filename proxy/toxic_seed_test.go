package proxy

import (
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
)

// The draws of toxiproxy's toxics repeat in failsim: each connection's come from the proxy's
// seed, the node, the connection's number and the toxic's name, so the same --seed replays a
// run. toxiproxy cannot: every draw (toxicity in ToxicStub.Run, latency's jitter, slicer's
// cuts) is from math/rand's global source, which its -seed no longer seeds (rand.Seed is a
// no-op since Go 1.24; cmd/server/server.go) and which every connection and toxic share in
// the order the scheduler runs them. TestLatencyJitterIsSeeded and
// TestToxicityIsDrawnPerConnectionFromTheSeed hold jitter and toxicity alone; these hold the
// slicer's cuts and the three together, end to end.

// slicerCuts returns the cuts a slicer toxic called name makes of eight 6,400-byte chunks on
// connection seq of node db1 in a proxy seeded with seed, checking that each chunk's pieces
// cover it in order and are within the toxic's bounds.
func slicerCuts(t *testing.T, seed, seq uint64, name string) []int {
	t.Helper()
	f := fault.Fault{Kind: fault.Slicer, Size: 100, Variation: 40}
	c := &conn{n: &Node{p: &Proxy{seed: seed}, seedHi: nameSeed("db1")}, seq: seq}
	s := (&slicer{f: f}).fresh(c.toxicRand(name), nil).(*slicer)
	var all []int
	for range 8 {
		cuts := s.cut(nil, 0, 6400)
		for i := 0; i < len(cuts); i += 2 {
			if i > 0 && cuts[i] != cuts[i-1] {
				t.Fatalf("piece %d starts at %d, want %d (the end of the one before)", i/2, cuts[i], cuts[i-1])
			}
			if n := cuts[i+1] - cuts[i]; n <= 0 || n > f.Size+f.Variation {
				t.Fatalf("a piece of %d bytes: want 1 to %d", n, f.Size+f.Variation)
			}
		}
		if cuts[0] != 0 || cuts[len(cuts)-1] != 6400 {
			t.Fatalf("the pieces span %d to %d, want 0 to 6400", cuts[0], cuts[len(cuts)-1])
		}
		all = append(all, cuts...)
	}
	return all
}

// TestSlicerCutsAreSeeded: the same seed, node, connection and toxic cut the same pieces;
// another seed, another connection or another toxic's name cut others.
func TestSlicerCutsAreSeeded(t *testing.T) {
	a := slicerCuts(t, 7, 3, "slicer_downstream")
	if !slices.Equal(a, slicerCuts(t, 7, 3, "slicer_downstream")) {
		t.Fatal("the same seed, node, connection and toxic cut different pieces")
	}
	for _, o := range []struct {
		what      string
		seed, seq uint64
		name      string
	}{{"another seed", 8, 3, "slicer_downstream"}, {"another connection", 7, 4, "slicer_downstream"}, {"another toxic", 7, 3, "slicer_upstream"}} {
		if slices.Equal(a, slicerCuts(t, o.seed, o.seq, o.name)) {
			t.Errorf("%s cut the same pieces of eight chunks", o.what)
		}
	}
}

// seededRun opens conns connections one after the other through a proxy seeded with seed
// whose node has two toxics at toxicity 0.5, limit_data 10 and latency 1ms jitter 1ms (whose
// draws share the connection's toxicity source with limit_data's), in front of a server that
// sends 100 bytes to each client and waits. It returns, per connection, whether limit_data
// acted (10 bytes then a FIN) or not (the 100 bytes), as a string of 1s and 0s.
func seededRun(t *testing.T, seed uint64, conns int) string {
	t.Helper()
	addr := upstreamOf(t, sendThen(payload(100), false))
	_, n := start(t, addr, "heal", func(c *Config) { c.Seed = seed })
	for _, words := range []string{"latency 1ms jitter 1ms", "limit-data 10"} {
		f, err := fault.Parse(strings.Fields(words))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.AddToxic(Toxic{Toxicity: 0.5, Fault: f}); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for range conns {
		c, err := net.DialTimeout("tcp", n.Addr(), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got := make([]byte, 100)
		k, err := io.ReadFull(c, got)
		c.Close()
		switch {
		case k == 10 && err == io.ErrUnexpectedEOF:
			b.WriteByte('1')
		case k == 100 && err == nil:
			b.WriteByte('0')
		default:
			t.Fatalf("a client got %d bytes and %v: want 10 and a FIN, or 100", k, err)
		}
	}
	return b.String()
}

// TestSeedRepeatsToxicity: end to end, the same seed makes the same connections meet
// limit_data, though another toxic draws from the same connections' sources; another seed
// picks others; and at toxicity 0.5 some connections meet it and some do not.
func TestSeedRepeatsToxicity(t *testing.T) {
	const conns = 24
	a, b := seededRun(t, 11, conns), seededRun(t, 11, conns)
	if a != b {
		t.Fatalf("seed 11 twice: %s then %s", a, b)
	}
	if !strings.Contains(a, "0") || !strings.Contains(a, "1") {
		t.Errorf("toxicity 0.5 over %d connections: %s, want some of each", conns, a)
	}
	if c := seededRun(t, 12, conns); c == a {
		t.Errorf("seeds 11 and 12 drew the same %d toxicities: %s", conns, a)
	}
}
