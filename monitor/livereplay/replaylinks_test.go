package livereplay

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/proxy"
)

// ProxyLinks reads a real links' proxy through its control API: a node REPLICA<-SOURCE of the
// timeline's nodes is a link, Route dials it, Set sets every link of a replica, and a replica
// the actions freeze with no link of its own is the user's error.
func TestProxyLinks(t *testing.T) {
	p, err := proxy.New(proxy.Config{Log: zerolog.Nop(), Nodes: []proxy.NodeConfig{
		{Name: "db2<-db1", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"},
		{Name: "db2<-db3", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"},
		{Name: "db4<-db1", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"}, // db4 is no node
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p.Handler("tok"))
	defer srv.Close()
	names := []string{"db1", "db2", "db3"}
	ctx := context.Background()

	l, err := NewProxyLinks(ctx, srv.URL, "tok", names, []ReplicationAction{{Node: 1, Kind: LinkFreeze}})
	if err != nil {
		t.Fatal(err)
	}
	n21, _ := p.Node("db2<-db1")
	if a, ok := l.Route(1, 0); !ok || a != n21.Addr() {
		t.Errorf("Route(db2, db1) = %q, %v, want %s", a, ok, n21.Addr())
	}
	if a, ok := l.Route(2, 0); ok {
		t.Errorf("Route(db3, db1) = %q, want no link", a)
	}
	md, err := proxy.ParseMode([]string{"freeze"})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Set(ctx, 1, md); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"db2<-db1", "db2<-db3", "db4<-db1"} {
		n, _ := p.Node(name)
		if got, want := n.Mode().String(), map[bool]string{true: md.String(), false: proxy.Mode{}.String()}[name != "db4<-db1"]; got != want {
			t.Errorf("%s in mode %q after Set(db2, freeze), want %q", name, got, want)
		}
	}

	_, err = NewProxyLinks(ctx, srv.URL, "tok", names, []ReplicationAction{{Node: 2, Kind: StreamLag}})
	var ie *InputError
	if want := "the links' proxy \"" + srv.URL + "\": no node db3<-SOURCE carries db3's stream (its nodes: db2<-db1, db2<-db3, db4<-db1)"; !errors.As(err, &ie) || ie.Error() != want ||
		ie.Field != FieldLinks || ie.Check != CheckStream || ie.Node != "db3" || ie.Addr != srv.URL {
		t.Errorf("a lag on db3 with no link: got %v (%#v), want the InputError %q", err, ie, want)
	}
	_, err = NewProxyLinks(ctx, srv.URL, "not-the-token", names, nil)
	if !errors.As(err, &ie) || ie.Field != FieldLinks || ie.Check != CheckControl || ie.Addr != srv.URL {
		t.Errorf("a refused token: got %v, want an InputError of the links' control API", err)
	}
}

// CheckLinksURL takes only http://IP:PORT on a literal address, and refuses the rest before
// any network call: no resolver is asked for a bare word, no other scheme is tried.
func TestCheckLinksURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:7480", "http://127.0.0.1:7480/", "http://[::1]:7480", "http://10.0.0.5:1"} {
		if err := CheckLinksURL(ok); err != nil {
			t.Errorf("CheckLinksURL(%q) = %v, want nil", ok, err)
		}
	}
	for raw, want := range map[string]string{
		"ftp://x":                     `the links' proxy "ftp://x": scheme "ftp": want http://IP:PORT (the proxy's control API speaks plain http)`,
		"https://127.0.0.1:7480":      `the links' proxy "https://127.0.0.1:7480": scheme "https": want http://IP:PORT (the proxy's control API speaks plain http)`,
		"x":                           `the links' proxy "x": want http://IP:PORT`,
		"127.0.0.1:7480":              `the links' proxy "127.0.0.1:7480": want http://IP:PORT`,
		"http://x:7480":               `the links' proxy "http://x:7480": "x" is not a literal IP address: failsim resolves no host name`,
		"http://localhost:7480":       `the links' proxy "http://localhost:7480": "localhost" is not a literal IP address: failsim resolves no host name`,
		"http://127.0.0.1":            `the links' proxy "http://127.0.0.1": want http://IP:PORT: no port`,
		"http://127.0.0.1:0":          `the links' proxy "http://127.0.0.1:0": port "0": want a number from 1 to 65535`,
		"http://127.0.0.1:99999":      `the links' proxy "http://127.0.0.1:99999": port "99999": want a number from 1 to 65535`,
		"http://127.0.0.1:http":       `the links' proxy "http://127.0.0.1:http": want http://IP:PORT`,
		"http://u:p@127.0.0.1:7480":   `the links' proxy "http://u:p@127.0.0.1:7480": want http://IP:PORT and nothing else: no user, path, query or fragment`,
		"http://127.0.0.1:7480/v1":    `the links' proxy "http://127.0.0.1:7480/v1": want http://IP:PORT and nothing else: no user, path, query or fragment`,
		"http://127.0.0.1:7480?a=b":   `the links' proxy "http://127.0.0.1:7480?a=b": want http://IP:PORT and nothing else: no user, path, query or fragment`,
		"http://[fe80::1%25eth0]:748": `the links' proxy "http://[fe80::1%25eth0]:748": "fe80::1%eth0" is not a literal IP address: failsim resolves no host name`,
	} {
		err := CheckLinksURL(raw)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Error() != want || ie.Field != FieldLinks || ie.Check != CheckDSN || ie.Addr != raw {
			t.Errorf("CheckLinksURL(%q) = %v, want the InputError %q of the links' URL", raw, err, want)
		}
	}
	// NewProxyLinks checks first: a bad URL never reaches the network.
	if _, err := NewProxyLinks(context.Background(), "ftp://x", "", []string{"db1"}, nil); err == nil || err.Error() != `the links' proxy "ftp://x": scheme "ftp": want http://IP:PORT (the proxy's control API speaks plain http)` {
		t.Errorf("NewProxyLinks(ftp://x) = %v", err)
	}
}
