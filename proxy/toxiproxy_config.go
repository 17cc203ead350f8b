package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/failsim/failsim/fileline"
)

// ToxiproxyConfig is what a toxiproxy config file holds: its proxies as nodes.
type ToxiproxyConfig struct {
	Nodes     []NodeConfig
	NodeLines []int // the line each of Nodes starts on
}

// ParseToxiproxyConfig reads the JSON array toxiproxy's -config and POST /populate take, a
// file named file:
//
//	[{"name": "db1", "listen": "127.0.0.1:4001", "upstream": "127.0.0.1:3306"},
//	 {"name": "db2", "listen": "127.0.0.1:4002", "upstream": "127.0.0.1:3307", "enabled": false}]
//
// as toxiproxy reads it: a missing "enabled" is true (false starts the node down), an empty
// "listen" picks a free port (on loopback), other fields are ignored. Every name and
// upstream must be given, each name once and as checkName allows it, and every address as
// NodeConfig checks it; whether a listen address is on loopback is the caller's to check
// (NodeConfig.CheckLoopback). Every error is a *fileline.Error at the line of the proxy, or
// of the JSON at fault.
func ParseToxiproxyConfig(file string, data []byte) (ToxiproxyConfig, error) {
	var tc ToxiproxyConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return tc, fileline.JSON(file, data, err)
	}
	if tok != json.Delim('[') {
		return tc, fileline.Errorf(file, fileline.LineAt(data, dec.InputOffset()), "want a JSON array of proxies, as toxiproxy's -config takes")
	}
	seen := map[string]int{} // name: line
	for i := 1; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ToxiproxyConfig{}, fileline.JSON(file, data, err)
		}
		start := dec.InputOffset() - int64(len(raw))
		line := fileline.LineAt(data, start)
		var e struct {
			Name     string `json:"name"`
			Listen   string `json:"listen"`
			Upstream string `json:"upstream"`
			Enabled  *bool  `json:"enabled"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				typ.Offset += start
			}
			return ToxiproxyConfig{}, fileline.JSON(file, data, err)
		}
		fail := func(format string, args ...any) (ToxiproxyConfig, error) {
			return ToxiproxyConfig{}, fileline.Errorf(file, line, "proxy %d: "+format, append([]any{i}, args...)...)
		}
		switch {
		case e.Name == "":
			return fail("missing required field: name")
		case e.Upstream == "":
			return fail("missing required field: upstream")
		}
		if err := checkName(e.Name); err != nil {
			return fail("%w", err)
		}
		if at, ok := seen[e.Name]; ok {
			return fail("%s given twice (first at line %d)", e.Name, at)
		}
		seen[e.Name] = line
		nc := NodeConfig{Name: e.Name, Listen: e.Listen, Upstream: e.Upstream, Disabled: e.Enabled != nil && !*e.Enabled}
		if nc.Listen == "" {
			nc.Listen = "127.0.0.1:0"
		}
		if err := nc.validate(); err != nil {
			return fail("%s: %w", nc.Name, err)
		}
		tc.Nodes = append(tc.Nodes, nc)
		tc.NodeLines = append(tc.NodeLines, line)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return ToxiproxyConfig{}, fileline.JSON(file, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return ToxiproxyConfig{}, fileline.Errorf(file, fileline.LineAt(data, dec.InputOffset()), "more after the array")
	}
	return tc, nil
}
