package main

import (
	"context"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/proxy"
)

// addToxiproxyFlags adds failsim proxy's toxiproxy flags: --toxiproxy [=ADDR] and
// --toxiproxy-config FILE.
func addToxiproxyFlags(c *cobra.Command, o *proxyFlags) {
	f := c.Flags()
	f.StringVar(&o.toxiproxy, "toxiproxy", "", "serve toxiproxy's HTTP API on `ADDR` (alone: "+proxy.DefaultToxiproxyAddr+", toxiproxy's)")
	f.Lookup("toxiproxy").NoOptDefVal = proxy.DefaultToxiproxyAddr
	f.StringVar(&o.toxiproxyConfig, "toxiproxy-config", "", "start the proxies of a toxiproxy config `FILE` (the JSON array of toxiproxy's -config)")
}

// readToxiproxyConfig reads a toxiproxy config file's proxies as nodes; a listen address off
// loopback is refused, at its line, unless anyAddress.
func readToxiproxyConfig(ctx context.Context, file string, anyAddress bool) ([]proxy.NodeConfig, error) {
	data, err := input.ReadFile(ctx, file, "toxiproxy config file", input.ConfigMax)
	if err != nil {
		return nil, usageErr(fmt.Errorf("proxy: %w", err), "")
	}
	tc, err := proxy.ParseToxiproxyConfig(file, data)
	if err != nil {
		return nil, usageErr(err, "")
	}
	for i, nc := range tc.Nodes {
		if err := nc.CheckLoopback(); err != nil && !anyAddress {
			return nil, usageErr(fileline.Errorf(file, tc.NodeLines[i], "proxy %s: %w", nc.Name, err), notLoopbackHint)
		}
	}
	return tc.Nodes, nil
}

// checkToxiproxyAddr refuses a toxiproxy API address off loopback unless
// --allow-non-loopback and a control token say it may be there.
func checkToxiproxyAddr(o *proxyFlags, token string) error {
	if o.toxiproxy == "" || isLoopback(o.toxiproxy) {
		return nil
	}
	if _, _, err := net.SplitHostPort(o.toxiproxy); err != nil {
		return usageErr(fmt.Errorf("proxy: --toxiproxy %q: %w", o.toxiproxy, err), "e.g. --toxiproxy=127.0.0.1:8474")
	}
	if !o.anyAddress || token == "" {
		return usageErr(fmt.Errorf("proxy: --toxiproxy %s is not a loopback address", o.toxiproxy),
			"anyone who reaches it can break your database links: give --allow-non-loopback and a control token (--control-token-file FILE or "+tokenEnv+"), which its calls must then bear")
	}
	return nil
}

// serveProxyAPIs serves the control API on ln and, if tln is not nil, toxiproxy's on tln,
// until ctx is done or one of them fails, which stops the other.
func serveProxyAPIs(ctx context.Context, p *proxy.Proxy, ln, tln net.Listener, token string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	go func() {
		err := p.ServeControl(ctx, ln, token)
		cancel()
		errs <- err
	}()
	n := 1
	if tln != nil {
		n++
		go func() {
			err := p.ServeToxiproxy(ctx, tln, token)
			cancel()
			errs <- err
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return &exitError{code: 1, err: fmt.Errorf("proxy: %w", first)}
	}
	return nil
}
