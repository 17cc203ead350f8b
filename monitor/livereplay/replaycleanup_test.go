package livereplay

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/proxy"
)

// An interrupted live run heals the replication links it left frozen or delayed, on a real
// links' proxy through its control API, and says what it leaves on the servers; a link it
// healed itself, a replicator it started again and a MASTER_DELAY back at 0 are not named.
func TestLeftBehindHeals(t *testing.T) {
	p, err := proxy.New(proxy.Config{Log: zerolog.Nop(), Nodes: []proxy.NodeConfig{
		{Name: "db2<-db1", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"},
		{Name: "db3<-db1", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"},
		{Name: "db3<-db2", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p.Handler("tok"))
	defer srv.Close()
	names := []string{"db1", "db2", "db3", "db4"}
	ctx := context.Background()
	links, err := NewProxyLinks(ctx, srv.URL, "tok", names, nil)
	if err != nil {
		t.Fatal(err)
	}
	left := newLeftBehind()
	set := func(node int, md proxy.Mode) {
		left.setLink(node, md)
		if err := links.Set(ctx, node, md); err != nil {
			t.Fatal(err)
		}
	}
	freeze := proxy.Mode{Fault: fault.Fault{Kind: fault.Freeze}}
	set(1, freeze)
	set(2, freeze)
	set(2, proxy.Mode{Fault: fault.Fault{Kind: fault.Delay, Delay: 5 * time.Second}})
	set(1, proxy.Mode{}) // healed by the timeline itself
	set(1, freeze)
	left.acted(ReplicationAction{Node: 1, Kind: ReplicatorStop})
	left.acted(ReplicationAction{Node: 2, Kind: ReplicatorStop})
	left.acted(ReplicationAction{Node: 2, Kind: ReplicatorStart})
	left.acted(ReplicationAction{Node: 3, Kind: ApplyLag, Lag: 30 * time.Second})
	left.acted(ReplicationAction{Node: 2, Kind: ApplyLag, Lag: 5 * time.Second})
	left.acted(ReplicationAction{Node: 2, Kind: ApplyLag})
	got := left.heal(links, names)
	want := []string{
		"interrupted: db2's replication links healed (they were in freeze)",
		"interrupted: db3's replication links healed (they were in delay 5s)",
		"interrupted: db2's replicator left stopped: run START SLAVE on it",
		"interrupted: db4 left with MASTER_DELAY=30: run STOP SLAVE; CHANGE MASTER TO MASTER_DELAY=0; START SLAVE on it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("heal:\n%q\nwant\n%q", got, want)
	}
	for _, name := range []string{"db2<-db1", "db3<-db1", "db3<-db2"} {
		if n, _ := p.Node(name); n.Mode() != (proxy.Mode{}) {
			t.Errorf("%s in mode %s after heal, want pass", name, n.Mode())
		}
	}
	// A links' proxy that is gone: the links are said to be left as they were.
	left.setLink(1, freeze)
	srv.Close()
	if got := left.heal(links, names); len(got) == 0 || !strings.HasPrefix(got[0], "interrupted: db2's replication links left in freeze: --links: set db2<-db1 to heal") {
		t.Errorf("heal with the links' proxy gone: %q", got)
	}
}
