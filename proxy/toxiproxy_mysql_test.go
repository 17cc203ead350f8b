package proxy_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
)

// TestToxiproxyConformanceMySQL is the conformance test's MySQL round trip (the byte-level
// cases are TestToxiproxyConformance): a real MariaDB behind real toxiproxy and behind
// failsim, each with latency 100ms on both streams, and one go-sql-driver/mysql client on
// each: its login and its SELECT must give the same answer and take the same time, within
// the conformance test's tolerance (max(50 ms, 20 %)), and at least the latency the messages
// they wait on add up to.
func TestToxiproxyConformanceMySQL(t *testing.T) {
	srv := mariadb.Need(t)

	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	tp := toxiproxy.NewProxy(server, "db1", "127.0.0.1:0", srv.Addr)
	if err := server.Collection.Add(tp, true); err != nil {
		t.Fatal(err)
	}
	defer server.Collection.Clear()

	px, err := proxy.New(proxy.Config{Nodes: []proxy.NodeConfig{{Name: "db1", Listen: "127.0.0.1:0", Upstream: srv.Addr}}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	fs, _ := px.Node("db1")

	const latency = 100 * time.Millisecond
	for _, stream := range []string{"upstream", "downstream"} {
		js := `{"type": "latency", "stream": "` + stream + `", "attributes": {"latency": 100}}`
		if _, err := tp.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
			t.Fatal(err)
		}
		f, err := fault.Parse(strings.Fields("latency 100ms " + stream))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fs.AddToxic(proxy.Toxic{Stream: f.Stream, Toxicity: 1, Fault: f}); err != nil {
			t.Fatal(err)
		}
	}

	type trip struct {
		login, query time.Duration
		answer       string
	}
	roundTrip := func(addr string) trip {
		db, err := sql.Open("mysql", srv.DSN(addr))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var tr trip
		t0 := time.Now()
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatalf("login through %s: %v", addr, err)
		}
		defer c.Close()
		tr.login = time.Since(t0)
		t0 = time.Now()
		if err := c.QueryRowContext(ctx, "SELECT CONCAT('x', 6 * 7)").Scan(&tr.answer); err != nil {
			t.Fatalf("query through %s: %v", addr, err)
		}
		tr.query = time.Since(t0)
		return tr
	}
	agree := func(a, b time.Duration) bool {
		slack := max(50*time.Millisecond, time.Duration(0.2*float64(max(a, b))))
		return a-b <= slack && b-a <= slack
	}
	// A login waits on the greeting, the client's answer and the server's OK (3 latencies at
	// least); a query on its command and its result (2). As in TestToxiproxyConformance, up to
	// three attempts: a timer late on a shared machine spoils one, a difference all three.
	var x, f trip
	for try := 1; try <= 3; try++ {
		x, f = roundTrip(tp.Listen), roundTrip(fs.Addr())
		t.Logf("attempt %d: toxiproxy: login %v, query %v; failsim: login %v, query %v", try, x.login, x.query, f.login, f.query)
		if x.answer != "x42" || f.answer != "x42" {
			t.Fatalf("answers: toxiproxy %q, failsim %q; want x42 from both", x.answer, f.answer)
		}
		if f.login >= 3*latency && f.query >= 2*latency && agree(f.login, x.login) && agree(f.query, x.query) {
			return
		}
	}
	t.Errorf("failsim took %v to log in and %v to query, toxiproxy %v and %v: want the same within max(50ms, 20%%), at least %v and %v",
		f.login, f.query, x.login, x.query, 3*latency, 2*latency)
}
