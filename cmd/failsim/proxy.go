package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/proxy"
)

// proxyCmd is failsim proxy: it serves the fault proxy; its subcommands set and status
// control a running one.
func (m *Main) proxyCmd() *cobra.Command {
	var o proxyFlags
	c := &cobra.Command{
		Use:   "proxy",
		Short: "run the fault-injecting MySQL wire proxy, or control a running one",
		Long: `Serve one fault-injecting listener in front of each database node, pass-through until told
to break the wire, with a control API (default 127.0.0.1:7480) that 'failsim proxy set' and
'failsim proxy status' talk to. It serves until SIGINT or SIGTERM. Flags win over the config
file's lines; --node flags add to its nodes. See docs/proxy.md.

A node listens on loopback only: a LISTEN address that is not (0.0.0.0, ::, a host's own
address) is refused, since every host that reaches it would reach the database through the
proxy, unless --allow-non-loopback says that is what you want.

A control API anywhere but on loopback needs a token, which every call must then bear. It is
read from --control-token, else the file of --control-token-file, else the environment
variable FAILSIM_CONTROL_TOKEN, else the config file's control-token line. A token given
with --control-token is visible to every local user in /proc.

--toxiproxy serves toxiproxy's HTTP API beside the control API (--toxiproxy alone: on
toxiproxy's 127.0.0.1:8474; another address with --toxiproxy=ADDR), so that toxiproxy's
clients create, change and remove proxies at run time; with it, no node is needed at start.
On loopback it asks no token, since toxiproxy's clients send none; anywhere else it needs
--allow-non-loopback and the control token, which its calls must then bear.
--toxiproxy-config FILE starts the proxies of a toxiproxy config file (its -config array).`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			hint := "the client commands are 'failsim proxy set' and 'failsim proxy status'"
			if s := suggestCommand(c, args[0]); s != "" {
				hint = fmt.Sprintf("did you mean 'failsim proxy %s'?", s)
			} else if c.Flags().Changed("toxiproxy") && strings.Contains(args[0], ":") {
				hint = fmt.Sprintf("--toxiproxy takes its address after '=': --toxiproxy=%s", args[0])
			}
			return usageErr(fmt.Errorf("proxy: unexpected argument %q", args[0]), hint)
		},
		RunE: func(c *cobra.Command, _ []string) error { return m.runProxyServe(c.Context(), c, &o) },
	}
	f := c.Flags()
	f.Var(&o.nodes, "node", "a node: `NAME=LISTEN,UPSTREAM` (repeatable)")
	f.StringVar(&o.config, "config", "", "config `FILE`: node, control, control-token, seed and handshake-timeout lines")
	f.StringVar(&o.control, "control", proxy.DefaultControlAddr, "control API `ADDR`")
	f.StringVar(&o.token, "control-token", "", tokenUsage)
	f.StringVar(&o.tokenFile, "control-token-file", "", tokenFileUsage)
	f.Uint64Var(&o.seed, "seed", 1, "seed `N` of the probabilistic modes")
	f.BoolVar(&o.anyAddress, "allow-non-loopback", false, "let a node listen on an address that is not loopback (0.0.0.0, ::, a host's own)")
	addToxiproxyFlags(c, &o)
	f.DurationVar(&o.handshake, "handshake-timeout", 30*time.Second, "close a client that has not answered the server's greeting within this `DURATION` (0: never)")
	f.BoolVar(&o.rewrite, "rewrite-topology", false, "on every node, rewrite the real servers' addresses to the proxy's in the replies that report topology (SHOW SLAVE HOSTS, SHOW SLAVE STATUS, SELECT @@hostname...); the config file's rewrite-topology does it per node")
	logLevelVar(c, &o.logLevel)
	c.AddCommand(m.proxySetCmd(), m.proxyStatusCmd())
	return c
}

// proxyFlags are failsim proxy's flags.
type proxyFlags struct {
	nodes                  nodeFlags
	config, control, token string
	tokenFile              string
	seed                   uint64
	handshake              time.Duration
	anyAddress             bool // --allow-non-loopback
	rewrite                bool // --rewrite-topology
	logLevel               string
	toxiproxy              string // --toxiproxy: toxiproxy's API address, "" for none
	toxiproxyConfig        string // --toxiproxy-config FILE
}

// nodeFlags collects repeated --node NAME=LISTEN,UPSTREAM flags.
type nodeFlags []proxy.NodeConfig

func (n *nodeFlags) String() string { return "" }
func (n *nodeFlags) Type() string   { return "node" }
func (n *nodeFlags) repeatable()    {}

func (n *nodeFlags) Set(v string) error {
	name, addrs, ok := strings.Cut(v, "=")
	listen, upstream, ok2 := strings.Cut(addrs, ",")
	if !ok || !ok2 || name == "" || listen == "" || upstream == "" {
		return fmt.Errorf("want NAME=LISTEN,UPSTREAM, e.g. db1=127.0.0.1:4001,127.0.0.1:3306")
	}
	*n = append(*n, proxy.NodeConfig{Name: name, Listen: listen, Upstream: upstream})
	return nil
}

func (m *Main) runProxyServe(ctx context.Context, c *cobra.Command, o *proxyFlags) error {
	log, err := m.newLogger(o.logLevel)
	if err != nil {
		return err
	}
	given := c.Flags().Changed
	control := o.control
	token, tokenGiven, err := controlToken(ctx, c, o.token, o.tokenFile)
	if err != nil {
		return err
	}
	cfg := proxy.Config{Seed: o.seed, Log: log, HandshakeTimeout: o.handshake, AllowNonLoopback: o.anyAddress}
	switch {
	case o.handshake < 0:
		return usageErr(fmt.Errorf("--handshake-timeout %s: want a positive duration, or 0 for never", o.handshake), "")
	case o.handshake == 0:
		cfg.HandshakeTimeout = -1 // the flag's 0 is "never"; the library's 0 is its default
	}
	if o.config != "" {
		data, err := input.ReadFile(ctx, o.config, "proxy config file", input.ConfigMax)
		if err != nil {
			if ctx.Err() != nil {
				return nil // stopped before it served: nothing to stop
			}
			return usageErr(fmt.Errorf("proxy: %w", err), "")
		}
		fc, err := proxy.ParseConfig(o.config, bytes.NewReader(data))
		if err != nil {
			return usageErr(err, "")
		}
		cfg.Nodes = fc.Nodes
		for i, nc := range fc.Nodes {
			if err := nc.CheckLoopback(); err != nil && !o.anyAddress {
				return usageErr(fileline.Errorf(o.config, fc.NodeLines[i], "node %s: %w", nc.Name, err), notLoopbackHint)
			}
		}
		if fc.Control != "" && !given("control") {
			control = fc.Control
		}
		if fc.ControlToken != "" && !tokenGiven {
			token = fc.ControlToken
		}
		if fc.HasSeed && !given("seed") {
			cfg.Seed = fc.Seed
		}
		if fc.HandshakeTimeout != 0 && !given("handshake-timeout") {
			cfg.HandshakeTimeout = fc.HandshakeTimeout
		}
	}
	if o.toxiproxyConfig != "" {
		nodes, err := readToxiproxyConfig(ctx, o.toxiproxyConfig, o.anyAddress)
		if err != nil {
			if ctx.Err() != nil {
				return nil // stopped before it served: nothing to stop
			}
			return err
		}
		cfg.Nodes = append(cfg.Nodes, nodes...)
	}
	cfg.Nodes = append(cfg.Nodes, o.nodes...)
	if given("rewrite-topology") {
		cfg.RewriteTopology = o.rewrite // the toxiproxy API's nodes too
		for i := range cfg.Nodes {
			cfg.Nodes[i].RewriteTopology = o.rewrite
		}
	}
	cfg.AllowNoNodes = o.toxiproxy != ""
	if len(cfg.Nodes) == 0 && !cfg.AllowNoNodes {
		return usageErr(errors.New("proxy: no nodes"), "give --node db1=127.0.0.1:4001,127.0.0.1:3306, --config FILE, or --toxiproxy to add them at run time")
	}
	if err := cfg.Validate(); err != nil {
		hint := ""
		if errors.Is(err, proxy.ErrNotLoopback) {
			hint = notLoopbackHint
		}
		return usageErr(fmt.Errorf("proxy: %w", err), hint)
	}
	if !isLoopback(control) && token == "" {
		return usageErr(fmt.Errorf("proxy: --control %s is not a loopback address and there is no control token", control),
			"anyone who reaches the control API can break your database links: give --control-token-file FILE or set "+tokenEnv)
	}
	if err := checkToxiproxyAddr(o, token); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", control)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("proxy: control: %w", err)}
	}
	var tln net.Listener
	if o.toxiproxy != "" {
		if tln, err = net.Listen("tcp", o.toxiproxy); err != nil {
			ln.Close()
			return &exitError{code: 1, err: fmt.Errorf("proxy: toxiproxy: %w", err)}
		}
	}
	p, err := proxy.New(cfg)
	if err != nil {
		ln.Close()
		if tln != nil {
			tln.Close()
		}
		return &exitError{code: 1, err: fmt.Errorf("proxy: %w", err)}
	}
	for _, n := range p.Nodes() {
		state := ""
		if !n.Enabled() {
			state = ", disabled"
		}
		fmt.Fprintf(m.Stdout, "node %s: %s -> %s (%s%s)\n", n.Name(), n.Addr(), n.Upstream(), n.Mode(), state)
	}
	fmt.Fprintf(m.Stdout, "control: http://%s\n", ln.Addr())
	if tln != nil {
		fmt.Fprintf(m.Stdout, "toxiproxy: http://%s\n", tln.Addr())
	}
	err = serveProxyAPIs(ctx, p, ln, tln, token)
	p.Close()
	return err
}

// notLoopbackHint is the hint under a listen address that is not on loopback.
const notLoopbackHint = "give --allow-non-loopback if every host that reaches it may reach the database"

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

// clientFlags are the flags of set and status.
type clientFlags struct {
	control, token, tokenFile string
	wait                      time.Duration
}

// clientHelp is what set's and status's help says of the token.
const clientHelp = `The control token is read from --control-token, else the file of --control-token-file, else
the environment variable FAILSIM_CONTROL_TOKEN. A token given with --control-token is visible
to every local user in /proc.`

// addClientFlags adds the flags shared by set and status to c.
func addClientFlags(c *cobra.Command, o *clientFlags) {
	f := c.Flags()
	f.StringVar(&o.control, "control", proxy.DefaultControlAddr, "control API `ADDR` of the running proxy")
	f.StringVar(&o.token, "control-token", "", tokenUsage)
	f.StringVar(&o.tokenFile, "control-token-file", "", tokenFileUsage)
	f.DurationVar(&o.wait, "wait", 0, "keep trying this long, a `DURATION`, while the proxy is not up yet")
}

// client returns the control client the flags describe.
func (o *clientFlags) client(ctx context.Context, c *cobra.Command) (*proxy.Client, error) {
	token, _, err := controlToken(ctx, c, o.token, o.tokenFile)
	if err != nil {
		return nil, err
	}
	return &proxy.Client{Addr: o.control, Token: token, HTTP: &http.Client{Timeout: 10 * time.Second}}, nil
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

func (m *Main) proxySetCmd() *cobra.Command {
	var o clientFlags
	c := &cobra.Command{
		Use:   "set",
		Short: "set a node's mode on a running proxy",
		Long: `Set a node's mode on a running proxy and print it. MODE is a fault: heal, refuse, reset,
close, freeze, blackhole, stall, slow DUR, delay DUR or error CODE, or one of toxiproxy's toxics,
latency DUR [jitter DUR], bandwidth NKB/s, slow-close DUR, timeout DUR|0, reset-peer [DUR], slicer
SIZE [variation N] [delay DUR] or limit-data N, downstream unless followed by 'upstream'; then
optionally a trigger, 'after N bytes' or 'at command K', and for slow, reset and close a
probability 'p P'. The mode replaces the node's whole chain of toxics with one; toxiproxy's API
(--toxiproxy) builds longer chains. The mode may be
given as separate words or quoted as one ('freeze after 4096 bytes'). A mode the proxy
refuses and an unknown node exit 2; a proxy that cannot be reached exits 1.

` + clientHelp,
		Annotations: map[string]string{argsAnnotation: "NODE MODE [ARG...]"},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageErr(errors.New("proxy set: want NODE MODE [ARG...]"), "e.g. failsim proxy set db1 freeze")
			}
			return nil
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) != 1 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var kinds []cobra.Completion
			for _, k := range fault.Kinds() {
				if k.Wire() {
					kinds = append(kinds, k.String())
				}
			}
			return kinds, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error { return m.runProxySet(c.Context(), c, &o, args) },
	}
	addClientFlags(c, &o)
	return c
}

func (m *Main) runProxySet(ctx context.Context, cmd *cobra.Command, o *clientFlags, args []string) error {
	// A mode quoted as one word ('freeze after 4096 bytes') is split as the shell would have.
	node, words := args[0], strings.Fields(strings.Join(args[1:], " "))
	if len(words) == 0 {
		return usageErr(errors.New("proxy set: want NODE MODE [ARG...]"), "e.g. failsim proxy set db1 freeze")
	}
	mode, err := proxy.ParseMode(words)
	if err != nil {
		hint := ""
		if _, known := fault.ParseKind(words[0]); !known {
			if k, ok := fault.Nearest(words[0]); ok {
				hint = fmt.Sprintf("did you mean %s?", k)
			}
		}
		return usageErr(fmt.Errorf("proxy set: %w", err), hint)
	}
	c, err := o.client(ctx, cmd)
	if err != nil {
		return err
	}
	var st proxy.NodeStatus
	err = retry(ctx, o.wait, func() (err error) {
		st, err = c.SetMode(ctx, node, mode.String())
		return err
	})
	if err != nil {
		return clientErr(err, c)
	}
	fmt.Fprintf(m.Stdout, "%s: %s\n", st.Name, st.Mode)
	return nil
}

func (m *Main) proxyStatusCmd() *cobra.Command {
	var o clientFlags
	c := &cobra.Command{
		Use:   "status",
		Short: "list a running proxy's nodes: mode, connections, faults and bytes",
		Long: `List a running proxy's nodes with their mode, open, accepted and faulted connections, and
bytes each way. A proxy that cannot be reached exits 1.

` + clientHelp,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr(fmt.Errorf("proxy status: unexpected argument %q", args[0]), "")
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error { return m.runProxyStatus(c.Context(), c, &o) },
	}
	addClientFlags(c, &o)
	return c
}

func (m *Main) runProxyStatus(ctx context.Context, cmd *cobra.Command, o *clientFlags) error {
	c, err := o.client(ctx, cmd)
	if err != nil {
		return err
	}
	var nodes []proxy.NodeStatus
	err = retry(ctx, o.wait, func() (err error) {
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
