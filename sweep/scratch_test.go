package sweep

import (
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	t0 := time.Now()
	res := run(t, config(t, 100, "login_response_timeout.threshold=1..12", "socket_connect_timeout.threshold=1..12"))
	t1 := time.Now()
	if _, err := res.Files(); err != nil {
		t.Fatal(err)
	}
	t.Log(t1.Sub(t0), time.Since(t1))
}
