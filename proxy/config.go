package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/failsim/failsim/fileline"
)

// FileConfig is what a proxy config file holds. Empty fields were not given.
type FileConfig struct {
	Nodes        []NodeConfig
	NodeLines    []int  // the line of each of Nodes
	Control      string // control API address
	ControlToken string // control API token, cleaned by CleanToken
	Seed         uint64
	HasSeed      bool // Seed was given
	// HandshakeTimeout is Config.HandshakeTimeout: zero when not given, negative for "off".
	HandshakeTimeout time.Duration
}

// ParseConfig reads a config file named file. One directive per line, '#' starts a comment:
//
//	node NAME LISTEN UPSTREAM [MODE...]   a node, optionally with its starting mode
//	                                      and the words rewrite-topology (NodeConfig.RewriteTopology)
//	                                      and topology-alias ADDR (NodeConfig.TopologyAliases)
//	control ADDR                          the control API address
//	control-token TOKEN                   the token the control API requires
//	seed N                                the seed of probabilistic modes
//	handshake-timeout DUR                 Config.HandshakeTimeout; "off" or 0 turns it off
//
// Every directive but node is given at most once. Every error is a *fileline.Error naming the line.
func ParseConfig(file string, r io.Reader) (FileConfig, error) {
	var fc FileConfig
	sc := bufio.NewScanner(r)
	line := 0
	nodes := map[string]bool{}      // node names given
	directives := map[string]bool{} // directives given
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		w := strings.Fields(text)
		if len(w) == 0 {
			continue
		}
		fail := func(err error) (FileConfig, error) {
			return FileConfig{}, &fileline.Error{File: file, Line: line, Err: err}
		}
		switch w[0] {
		case "node":
			if len(w) < 4 {
				return fail(errors.New("node wants NAME LISTEN UPSTREAM [MODE...]"))
			}
			if err := checkName(w[1]); err != nil {
				return fail(err)
			}
			if nodes[w[1]] {
				return fail(fmt.Errorf("node %s given twice", w[1]))
			}
			nodes[w[1]] = true
			nc := NodeConfig{Name: w[1], Listen: w[2], Upstream: w[3]}
			words, err := nc.topologyWords(w[4:])
			if err != nil {
				return fail(fmt.Errorf("node %s: %w", w[1], err))
			}
			if len(words) > 0 {
				m, err := ParseMode(words)
				if err != nil {
					return fail(fmt.Errorf("node %s: %w", w[1], err))
				}
				nc.Mode = m
			}
			if err := nc.validate(); err != nil {
				return fail(fmt.Errorf("node %s: %w", w[1], err))
			}
			fc.Nodes = append(fc.Nodes, nc)
			fc.NodeLines = append(fc.NodeLines, line)
		case "control", "control-token", "seed", "handshake-timeout":
			if len(w) != 2 {
				return fail(fmt.Errorf("%s wants one value", w[0]))
			}
			if directives[w[0]] {
				return fail(fmt.Errorf("%s given twice", w[0]))
			}
			directives[w[0]] = true
			switch w[0] {
			case "control":
				fc.Control = w[1]
			case "control-token":
				token, err := CleanToken(w[1])
				if err != nil {
					return fail(err)
				}
				fc.ControlToken = token
			case "seed":
				n, err := strconv.ParseUint(w[1], 10, 64)
				if err != nil {
					return fail(fmt.Errorf("seed %q is not a non-negative integer", w[1]))
				}
				fc.Seed, fc.HasSeed = n, true
			case "handshake-timeout":
				d, err := parseHandshakeTimeout(w[1])
				if err != nil {
					return fail(err)
				}
				fc.HandshakeTimeout = d
			}
		default:
			return fail(fmt.Errorf("unknown directive %q: want node, control, control-token, seed or handshake-timeout", w[0]))
		}
	}
	if err := sc.Err(); err != nil {
		return FileConfig{}, fileline.Errorf(file, line+1, "line too long or unreadable: %w", err)
	}
	return fc, nil
}

// parseHandshakeTimeout reads a handshake-timeout value: a positive duration, or "off" or
// 0 for no bound (returned as -1).
func parseHandshakeTimeout(s string) (time.Duration, error) {
	if s == "off" {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil || d < 0:
		return 0, fmt.Errorf("handshake-timeout %q: want a duration such as 30s, or off", s)
	case d == 0:
		return -1, nil
	}
	return d, nil
}

// topologyWords takes a node line's rewrite-topology and topology-alias ADDR words out of
// words, wherever they are, into nc; it returns the others, the mode's.
func (nc *NodeConfig) topologyWords(words []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(words); i++ {
		switch words[i] {
		case "rewrite-topology":
			if nc.RewriteTopology {
				return nil, errors.New("rewrite-topology given twice")
			}
			nc.RewriteTopology = true
		case "topology-alias":
			if i+1 == len(words) {
				return nil, errors.New("topology-alias wants an ADDR, e.g. topology-alias db1.example:3306")
			}
			i++
			nc.TopologyAliases = append(nc.TopologyAliases, words[i])
		default:
			rest = append(rest, words[i])
		}
	}
	return rest, nil
}
