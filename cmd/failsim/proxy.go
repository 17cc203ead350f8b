package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/failsim/failsim/proxy"
)

// runProxy serves the fault proxy, or with "set" or "status" controls a running one.
func (m *Main) runProxy(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "set":
			return m.runProxySet(ctx, args[1:])
		case "status":
			return m.runProxyStatus(ctx, args[1:])
		}
	}
	return m.runProxyServe(ctx, args)
}

// nodeFlags collects repeated --node NAME=LISTEN,UPSTREAM flags.
type nodeFlags []proxy.NodeConfig

func (n *nodeFlags) String() string { return "" }

func (n *nodeFlags) Set(v string) error {
	name, addrs, ok := strings.Cut(v, "=")
	listen, upstream, ok2 := strings.Cut(addrs, ",")
	if !ok || !ok2 || name == "" || listen == "" || upstream == "" {
		return fmt.Errorf("want NAME=LISTEN,UPSTREAM, e.g. db1=127.0.0.1:4001,127.0.0.1:3306")
	}
	*n = append(*n, proxy.NodeConfig{Name: name, Listen: listen, Upstream: upstream})
	return nil
}

func (m *Main) runProxyServe(ctx context.Context, args []string) error {
	fs := m.newFlags("proxy", "[--node NAME=LISTEN,UPSTREAM]... [--config FILE] [--control ADDR] [--control-token T] [--seed N]\n"+
		"       failsim proxy set [--control ADDR] [--control-token T] NODE MODE [ARG...]\n"+
		"       failsim proxy status [--control ADDR] [--control-token T]")
	var nodes nodeFlags
	fs.Var(&nodes, "node", "a node: `NAME=LISTEN,UPSTREAM` (repeatable)")
	config := fs.String("config", "", "config `file`: node, control, control-token and seed lines")
	control := fs.String("control", proxy.DefaultControlAddr, "control API `address`")
	token := fs.String("control-token", "", "`token` the control API requires; needed unless --control is loopback")
	seed := fs.Uint64("seed", 1, "seed of the probabilistic modes")
	level := logLevelFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("proxy: unexpected argument %q", fs.Arg(0)), "the client commands are 'failsim proxy set' and 'failsim proxy status'")
	}
	log, err := m.newLogger(*level)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	cfg := proxy.Config{Seed: *seed, Log: log}
	if *config != "" {
		f, err := os.Open(*config)
		if err != nil {
			return usageErr(fmt.Errorf("proxy: %w", err), "")
		}
		fc, err := proxy.ParseConfig(*config, f)
		f.Close()
		if err != nil {
			return usageErr(err, "")
		}
		cfg.Nodes = fc.Nodes
		if fc.Control != "" && !given["control"] {
			*control = fc.Control
		}
		if fc.ControlToken != "" && !given["control-token"] {
			*token = fc.ControlToken
		}
		if fc.HasSeed && !given["seed"] {
			cfg.Seed = fc.Seed
		}
	}
	cfg.Nodes = append(cfg.Nodes, nodes...)
	if len(cfg.Nodes) == 0 {
		return usageErr(errors.New("proxy: no nodes"), "give --node db1=127.0.0.1:4001,127.0.0.1:3306 or --config FILE")
	}
	if err := cfg.Validate(); err != nil {
		return usageErr(fmt.Errorf("proxy: %w", err), "")
	}
	if !isLoopback(*control) && *token == "" {
		return usageErr(fmt.Errorf("proxy: --control %s is not a loopback address and there is no --control-token", *control),
			"anyone who reaches the control API can break your database links: give --control-token")
	}
	ln, err := net.Listen("tcp", *control)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("proxy: control: %w", err)}
	}
	p, err := proxy.New(cfg)
	if err != nil {
		ln.Close()
		return &exitError{code: 1, err: fmt.Errorf("proxy: %w", err)}
	}
	for _, n := range p.Nodes() {
		fmt.Fprintf(m.Stdout, "node %s: %s -> %s (%s)\n", n.Name(), n.Addr(), n.Upstream(), n.Mode())
	}
	fmt.Fprintf(m.Stdout, "control: http://%s\n", ln.Addr())
	srv := &http.Server{Handler: p.Handler(*token), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	p.Close()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return &exitError{code: 1, err: fmt.Errorf("proxy: control: %w", err)}
	}
	return nil
}

// isLoopback reports whether a host:port names only the loopback interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// clientFlags adds the flags shared by set and status.
func (m *Main) clientFlags(fs *flag.FlagSet) (*proxy.Client, *time.Duration) {
	c := &proxy.Client{HTTP: &http.Client{Timeout: 10 * time.Second}}
	fs.StringVar(&c.Addr, "control", proxy.DefaultControlAddr, "control API `address` of the running proxy")
	fs.StringVar(&c.Token, "control-token", "", "`token` the control API requires")
	wait := fs.Duration("wait", 0, "keep trying this long while the proxy is not up yet")
	return c, wait
}

// retry runs call until it succeeds, fails with an answer from the proxy, or wait runs out.
func retry(ctx context.Context, wait time.Duration, call func() error) error {
	deadline := time.Now().Add(wait)
	for {
		err := call()
		if err == nil || proxy.IsAPIError(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// clientErr turns a control call's error into the CLI's: the proxy's refusals are bad
// input (exit 2); not reaching it is a failure (exit 1).
func clientErr(err error, c *proxy.Client) error {
	if proxy.IsAPIError(err) {
		return usageErr(fmt.Errorf("proxy: %w", err), "")
	}
	return &exitError{code: 1, err: fmt.Errorf("proxy: %w", err),
		hint: fmt.Sprintf("is 'failsim proxy' running with --control %s?", c.Addr)}
}

func (m *Main) runProxySet(ctx context.Context, args []string) error {
	fs := m.newFlags("proxy set", "[--control ADDR] [--control-token T] [--wait DUR] NODE MODE [ARG...]\n"+
		"MODE: heal, refuse, reset, close, freeze, blackhole, stall, slow DUR, error CODE;\n"+
		"then optionally 'after N bytes' or 'at command K', and 'p P' for slow, reset, close")
	c, wait := m.clientFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usageErr(errors.New("proxy set: want NODE MODE [ARG...]"), "e.g. failsim proxy set db1 freeze")
	}
	node, words := fs.Arg(0), fs.Args()[1:]
	mode, err := proxy.ParseMode(words)
	if err != nil {
		return usageErr(fmt.Errorf("proxy set: %w", err), "")
	}
	var st proxy.NodeStatus
	err = retry(ctx, *wait, func() (err error) {
		st, err = c.SetMode(ctx, node, mode.String())
		return err
	})
	if err != nil {
		return clientErr(err, c)
	}
	fmt.Fprintf(m.Stdout, "%s: %s\n", st.Name, st.Mode)
	return nil
}

func (m *Main) runProxyStatus(ctx context.Context, args []string) error {
	fs := m.newFlags("proxy status", "[--control ADDR] [--control-token T] [--wait DUR]")
	c, wait := m.clientFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("proxy status: unexpected argument %q", fs.Arg(0)), "")
	}
	var nodes []proxy.NodeStatus
	err := retry(ctx, *wait, func() (err error) {
		nodes, err = c.Nodes(ctx)
		return err
	})
	if err != nil {
		return clientErr(err, c)
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tLISTEN\tUPSTREAM\tMODE\tOPEN\tACCEPTED\tFAULTED\tBYTES_UP\tBYTES_DOWN")
	for _, n := range nodes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n", n.Name, n.Listen, n.Upstream, n.Mode,
			n.Open, n.Accepted, n.Faulted, n.BytesUp, n.BytesDown)
	}
	return tw.Flush()
}
