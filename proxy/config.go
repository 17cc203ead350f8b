package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FileConfig is what a proxy config file holds. Empty fields were not given.
type FileConfig struct {
	Nodes        []NodeConfig
	Control      string // control API address
	ControlToken string // control API token
	Seed         uint64
	HasSeed      bool // Seed was given
}

// ConfigError is a config file error at a line.
type ConfigError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *ConfigError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// ParseConfig reads a config file named file. One directive per line, '#' starts a comment:
//
//	node NAME LISTEN UPSTREAM [MODE...]   a node, optionally with its starting mode
//	control ADDR                          the control API address
//	control-token TOKEN                   the token the control API requires
//	seed N                                the seed of probabilistic modes
func ParseConfig(file string, r io.Reader) (FileConfig, error) {
	var fc FileConfig
	sc := bufio.NewScanner(r)
	line := 0
	seen := map[string]bool{}
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		w := strings.Fields(text)
		if len(w) == 0 {
			continue
		}
		fail := func(err error) (FileConfig, error) {
			return FileConfig{}, &ConfigError{File: file, Line: line, Err: err}
		}
		switch w[0] {
		case "node":
			if len(w) < 4 {
				return fail(errors.New("node wants NAME LISTEN UPSTREAM [MODE...]"))
			}
			if seen[w[1]] {
				return fail(fmt.Errorf("node %s given twice", w[1]))
			}
			seen[w[1]] = true
			nc := NodeConfig{Name: w[1], Listen: w[2], Upstream: w[3]}
			if len(w) > 4 {
				m, err := ParseMode(w[4:])
				if err != nil {
					return fail(fmt.Errorf("node %s: %w", w[1], err))
				}
				nc.Mode = m
			}
			fc.Nodes = append(fc.Nodes, nc)
		case "control", "control-token", "seed":
			if len(w) != 2 {
				return fail(fmt.Errorf("%s wants one value", w[0]))
			}
			switch w[0] {
			case "control":
				fc.Control = w[1]
			case "control-token":
				fc.ControlToken = w[1]
			case "seed":
				n, err := strconv.ParseUint(w[1], 10, 64)
				if err != nil {
					return fail(fmt.Errorf("seed %q is not a non-negative integer", w[1]))
				}
				fc.Seed, fc.HasSeed = n, true
			}
		default:
			return fail(fmt.Errorf("unknown directive %q: want node, control, control-token or seed", w[0]))
		}
	}
	if err := sc.Err(); err != nil {
		return FileConfig{}, fmt.Errorf("%s: %w", file, err)
	}
	return fc, nil
}
