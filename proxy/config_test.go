package proxy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fileline"
)

func TestParseConfig(t *testing.T) {
	fc, err := ParseConfig("p.conf", strings.NewReader(`# a proxy
control 127.0.0.1:7480
control-token s3cret   # a comment
seed 42
handshake-timeout 10s
node db1 127.0.0.1:4001 127.0.0.1:3306
node db2 127.0.0.1:0 db2.internal:3306 freeze after 10 bytes
`))
	if err != nil {
		t.Fatal(err)
	}
	if fc.Control != "127.0.0.1:7480" || fc.ControlToken != "s3cret" || fc.Seed != 42 || !fc.HasSeed ||
		fc.HandshakeTimeout != 10*time.Second || len(fc.Nodes) != 2 || fc.Nodes[1].Mode.String() != "freeze after 10 bytes" {
		t.Errorf("parsed %+v", fc)
	}
	for _, tc := range []struct{ in, want string }{
		{"handshake-timeout off", ""},
		{"handshake-timeout 0", ""},
		{"handshake-timeout 0s", ""},
	} {
		fc, err := ParseConfig("p.conf", strings.NewReader(tc.in))
		if err != nil || fc.HandshakeTimeout >= 0 {
			t.Errorf("%q: %v, handshake timeout %v; want off (negative)", tc.in, err, fc.HandshakeTimeout)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"listen 1", `p.conf:1: unknown directive "listen": want node, control, control-token, seed or handshake-timeout`},
		{"node db1 127.0.0.1:1", "p.conf:1: node wants NAME LISTEN UPSTREAM [MODE...]"},
		{"node db1 127.0.0.1:0 127.0.0.1:1\n\nnode db1 127.0.0.1:0 127.0.0.1:2", "p.conf:3: node db1 given twice"},
		{"control a:1\ncontrol b:1", "p.conf:2: control given twice"},
		{"control-token a\ncontrol-token b", "p.conf:2: control-token given twice"},
		{"seed 1\n# x\nseed 1", "p.conf:3: seed given twice"},
		{"handshake-timeout 1s\nhandshake-timeout 2s", "p.conf:2: handshake-timeout given twice"},
		{"seed -3", `p.conf:1: seed "-3" is not a non-negative integer`},
		{"control", "p.conf:1: control wants one value"},
		{"handshake-timeout 1s 2s", "p.conf:1: handshake-timeout wants one value"},
		{"handshake-timeout soon", `p.conf:1: handshake-timeout "soon": want a duration such as 30s, or off`},
		{"handshake-timeout -1s", `p.conf:1: handshake-timeout "-1s": want a duration such as 30s, or off`},
		{"control-token a\x01b", "p.conf:1: control token: whitespace, a control character or invalid UTF-8 inside"},
		{"node db1 127.0.0.1:0 127.0.0.1:1 explode", `p.conf:1: node db1: unknown fault "explode"`},
		{"node db1 127.0.0.1:0 127.0.0.1:99999", `p.conf:1: node db1: upstream address "127.0.0.1:99999": port "99999" is not a number from 1 to 65535`},
		{"node db1 127.0.0.1:0 127.0.0.1:abc", `p.conf:1: node db1: upstream address "127.0.0.1:abc": port "abc" is not a number from 1 to 65535`},
		{"node db1 127.0.0.1:0 127.0.0.1:0", `p.conf:1: node db1: upstream address "127.0.0.1:0": port "0" is not a number from 1 to 65535`},
		{"node db1 127.0.0.1:70000 127.0.0.1:1", `p.conf:1: node db1: listen address "127.0.0.1:70000": port "70000" is not a number from 0 to 65535`},
		{"node db1 127.0.0.1:4001 noport", `p.conf:1: node db1: upstream address "noport": address noport: missing port in address`},
		{"seed 1\nnode db1 127.0.0.1:0 127.0.0.1:1 reset p 0.5 p 0.7", `p.conf:2: node db1: "p" given twice`},
		{"seed 1\ncontrol " + strings.Repeat("x", 70000), "p.conf:2: line too long or unreadable: bufio.Scanner: token too long"},
	} {
		_, err := ParseConfig("p.conf", strings.NewReader(tc.in))
		var ce *fileline.Error
		if err == nil || !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestValidateRefusesBadPorts(t *testing.T) {
	node := func(listen, upstream string) Config {
		return Config{Nodes: []NodeConfig{{Name: "db1", Listen: listen, Upstream: upstream}}}
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{node("127.0.0.1:0", "127.0.0.1:99999"), `node db1: upstream address "127.0.0.1:99999": port "99999" is not a number from 1 to 65535`},
		{node("127.0.0.1:0", "127.0.0.1:abc"), `node db1: upstream address "127.0.0.1:abc": port "abc" is not a number from 1 to 65535`},
		{node("127.0.0.1:0", "127.0.0.1:0"), `node db1: upstream address "127.0.0.1:0": port "0" is not a number from 1 to 65535`},
		{node("127.0.0.1:0", "127.0.0.1:+5"), `node db1: upstream address "127.0.0.1:+5": port "+5" is not a number from 1 to 65535`},
		{node("127.0.0.1:0", "127.0.0.1:mysql"), `node db1: upstream address "127.0.0.1:mysql": port "mysql" is not a number from 1 to 65535`},
		{node("127.0.0.1:-1", "127.0.0.1:1"), `node db1: listen address "127.0.0.1:-1": port "-1" is not a number from 0 to 65535`},
		{node("127.0.0.1:99999", "127.0.0.1:1"), `node db1: listen address "127.0.0.1:99999": port "99999" is not a number from 0 to 65535`},
	} {
		if err := tc.cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.cfg.Nodes[0], err, tc.want)
		}
		if _, err := New(tc.cfg); err == nil {
			t.Errorf("New(%+v) started", tc.cfg.Nodes[0])
		}
	}
	if err := node("127.0.0.1:0", "127.0.0.1:65535").Validate(); err != nil {
		t.Errorf("port 65535: %v", err)
	}
}

// TestValidateRefusesNonLoopbackListen: a node listens on loopback unless the config says
// otherwise: every interface (0.0.0.0, ::, no host) is refused with ErrNotLoopback, and
// accepted with AllowNonLoopback.
func TestValidateRefusesNonLoopbackListen(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:4001", "[::]:4001", ":4001", "192.0.2.7:4001"} {
		cfg := Config{Nodes: []NodeConfig{{Name: "db1", Listen: listen, Upstream: "127.0.0.1:3306"}}}
		want := `node db1: listen address "` + listen + `" is not a loopback address: every host that reaches it would reach the database`
		if err := cfg.Validate(); !errors.Is(err, ErrNotLoopback) || err.Error() != want {
			t.Errorf("%s: %v, want %s", listen, err, want)
		}
		cfg.AllowNonLoopback = true
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s with AllowNonLoopback: %v", listen, err)
		}
	}
	for _, listen := range []string{"127.0.0.1:0", "127.0.0.2:4001", "[::1]:4001", "localhost:0"} {
		cfg := Config{Nodes: []NodeConfig{{Name: "db1", Listen: listen, Upstream: "127.0.0.1:3306"}}}
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", listen, err)
		}
	}
}

func TestCleanToken(t *testing.T) {
	for in, want := range map[string]string{"s3cret": "s3cret", " s3cret\n": "s3cret", "\ts3cret \r\n": "s3cret", "  ": "", "": ""} {
		if got, err := CleanToken(in); err != nil || got != want {
			t.Errorf("CleanToken(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"s3 cret", "a\nb", "a\x00b", "a\x7fb", "a\xffb"} {
		if got, err := CleanToken(in); err == nil {
			t.Errorf("CleanToken(%q) = %q, want an error", in, got)
		}
	}
}

// FuzzParseConfig: no input panics; an error names a line of the input; a config that parses
// holds only nodes that New would accept.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"node db1 127.0.0.1:4001 127.0.0.1:3306 freeze after 10 bytes\ncontrol 127.0.0.1:7480\n",
		"control-token s3cret\nseed 42\nhandshake-timeout 10s\n# comment\n",
		"node db1 127.0.0.1:0 127.0.0.1:0\n",
		"seed 1\nseed 2\n",
		"handshake-timeout off\nnode a :0 b:1 slow 1s p 0.5 at command 2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		fc, err := ParseConfig("f.conf", strings.NewReader(in))
		if err != nil {
			var ce *fileline.Error
			if errors.As(err, &ce) {
				if lines := strings.Count(in, "\n") + 1; ce.Line < 1 || ce.Line > lines {
					t.Fatalf("error at line %d of %d: %v", ce.Line, lines, err)
				}
			}
			return
		}
		for _, nc := range fc.Nodes {
			if err := nc.validate(); err != nil {
				t.Fatalf("node %+v parsed but does not validate: %v", nc, err)
			}
		}
		if fc.ControlToken != "" {
			if clean, err := CleanToken(fc.ControlToken); err != nil || clean != fc.ControlToken {
				t.Fatalf("token %q is not clean", fc.ControlToken)
			}
		}
	})
}
