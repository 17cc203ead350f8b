package livereplay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/failsim/failsim/proxy"
)

// ProxyLinks is the ReplLinks of a live replay's links' proxy: the running failsim proxy that carries
// the replicas' streams, one node REPLICA<-SOURCE per stream, driven through its control API.
type ProxyLinks struct {
	client *proxy.Client
	all    []string         // every node of the proxy, sorted
	of     map[int][]string // per replica: its link nodes
	addr   map[[2]int]string
}

// ErrHostName is why CheckLinksURL refuses a host that is not a literal IP address.
var ErrHostName = errors.New("failsim resolves no host name")

// CheckLinksURL checks the links' proxy's URL without any network call: it must be http://IP:PORT,
// IP a literal address (no host name, so no resolver is asked) and PORT a number from 1 to
// 65535, with no user, path, query or fragment. A bad one is an *InputError (FieldLinks,
// CheckDSN, Addr raw).
func CheckLinksURL(raw string) error {
	bad := func(why string) error {
		return &InputError{Field: FieldLinks, Check: CheckDSN, Addr: raw, Err: errors.New(why)}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return bad("want http://IP:PORT")
	}
	if u.Scheme != "http" {
		return bad(fmt.Sprintf("scheme %q: want http://IP:PORT (the proxy's control API speaks plain http)", u.Scheme))
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return bad("want http://IP:PORT and nothing else: no user, path, query or fragment")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return bad("want http://IP:PORT: no port")
	}
	if _, err := netip.ParseAddr(host); err != nil || strings.Contains(host, "%") {
		return &InputError{Field: FieldLinks, Check: CheckDSN, Addr: raw, Err: fmt.Errorf("%q is not a literal IP address: %w", host, ErrHostName)}
	}
	if p, err := netip.ParseAddrPort("127.0.0.1:" + port); err != nil || p.Port() == 0 {
		return bad(fmt.Sprintf("port %q: want a number from 1 to 65535", port))
	}
	return nil
}

// NewProxyLinks lists the links' proxy's nodes; a node named REPLICA<-SOURCE of two of the
// timeline's nodes is a link. Every replica whose stream one of acts freezes, heals or lags
// must have one. url must pass CheckLinksURL, which NewProxyLinks checks before any call.
func NewProxyLinks(ctx context.Context, url, token string, names []string, acts []ReplicationAction) (*ProxyLinks, error) {
	if err := CheckLinksURL(url); err != nil {
		return nil, err
	}
	l := &ProxyLinks{client: &proxy.Client{Addr: strings.TrimSuffix(url, "/"), Token: token}, of: map[int][]string{}, addr: map[[2]int]string{}}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nodes, err := l.client.Nodes(ctx)
	if err != nil {
		return nil, &InputError{Field: FieldLinks, Check: CheckControl, Addr: url, Err: err}
	}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	for _, n := range nodes {
		l.all = append(l.all, n.Name)
		rep, src, ok := strings.Cut(n.Name, "<-")
		ri, rok := index[rep]
		si, sok := index[src]
		if !ok || !rok || !sok || ri == si {
			continue
		}
		l.of[ri] = append(l.of[ri], n.Name)
		l.addr[[2]int{ri, si}] = n.Listen
	}
	sort.Strings(l.all)
	for _, a := range acts {
		if a.Kind == LinkFreeze || a.Kind == LinkHeal || a.Kind == StreamLag {
			if len(l.of[a.Node]) == 0 {
				return nil, &InputError{Field: FieldLinks, Check: CheckStream, Node: names[a.Node], Addr: url,
					Err: fmt.Errorf("no node %s<-SOURCE carries %s's stream (its nodes: %s)", names[a.Node], names[a.Node], strings.Join(l.all, ", "))}
			}
		}
	}
	return l, nil
}

// Route is the address replica rep dials to stream from src through the links' proxy.
func (l *ProxyLinks) Route(rep, src int) (string, bool) {
	if l == nil {
		return "", false
	}
	a, ok := l.addr[[2]int{rep, src}]
	return a, ok
}

// Set sets mode md on every link of replica node.
func (l *ProxyLinks) Set(ctx context.Context, node int, md proxy.Mode) error {
	if l == nil {
		return errors.New("no --links")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, name := range l.of[node] {
		if _, err := l.client.SetMode(ctx, name, md.String()); err != nil {
			return fmt.Errorf("--links: set %s to %s: %w", name, md, err)
		}
	}
	return nil
}
