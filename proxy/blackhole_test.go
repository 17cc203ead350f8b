package proxy

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/fakemysql"
)

// TestBlackholeUnderConnectionLoad switches a node between blackhole and heal while 64
// clients connect in a loop: setting the mode never fails and never waits on their traffic.
func TestBlackholeUnderConnectionLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.DialTimeout("tcp", n.Addr(), 200*time.Millisecond)
				if err == nil {
					c.Close()
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 12 {
		mode := "blackhole"
		if i%2 == 1 {
			mode = "heal"
		}
		time.Sleep(400 * time.Millisecond)
		m, _ := parseModeString(mode)
		t0 := time.Now()
		if err := n.SetMode(m); err != nil {
			t.Errorf("set %s (%d of 12) after %v: %v", mode, i+1, time.Since(t0).Round(time.Millisecond), err)
			continue
		} else if d := time.Since(t0); d > 3*time.Second {
			t.Errorf("set %s (%d of 12) took %v", mode, i+1, d.Round(time.Millisecond))
		}
		if mode == "blackhole" {
			// Whoever filled the queue, a new connect now hangs.
			if c, err := net.DialTimeout("tcp", n.Addr(), silence); err == nil {
				c.Close()
				t.Errorf("set blackhole (%d of 12): a new connect succeeded", i+1)
			} else if !isTimeout(err) {
				t.Errorf("set blackhole (%d of 12): connect %v, want a dial timeout", i+1, err)
			}
		}
	}
}
