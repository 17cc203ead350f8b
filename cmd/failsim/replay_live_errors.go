package main

import (
	"errors"
	"fmt"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/monitor/livereplay"
)

// The hints under a live replay's bad input.
const (
	dsnHint          = "a DSN looks like probe:PASSWORD@tcp(127.0.0.1:3306)/"
	serverProbeHint  = "the live replay needs every node's server running, the probe user able to log in and query"
	grantsHint       = `docs/live.md lists the grants each user needs ("The privileges each user needs")`
	linksURLHint     = "--links is the control API of the failsim proxy that carries the replicas' streams, as http://IP:PORT (e.g. http://127.0.0.1:7480)"
	linksControlHint = "--links is the control API of the failsim proxy that carries the replicas' streams (failsim proxy --control ADDR)"
)

// ledgerHint is the hint under a ledger the master does not have or the probe user cannot read.
var ledgerHint = "create " + livereplay.LedgerTable + " (id BIGINT PRIMARY KEY) on the master, and grant the probe user SELECT and --writer INSERT on it"

// liveUsers are the users of a live replay with a workload: the flag that names each, and the
// environment variable its password comes from.
var liveUsers = map[livereplay.Field]struct{ flag, env string }{
	livereplay.FieldAdmin:  {"--admin", adminPasswordEnv},
	livereplay.FieldWriter: {"--writer", writerPasswordEnv},
}

// liveUsage maps a live replay's errors: a *livereplay.InputError is bad input (exit 2), said
// with the flag that gave the input and its hint (liveInput); any other a failed run (exit 1).
func liveUsage(err error) error {
	var ie *livereplay.InputError
	if errors.As(err, &ie) {
		return liveInput(ie)
	}
	return &exitError{code: 1, err: err}
}

// liveInput is e as failsim reports it (exit 2): naming the flag that gave the input
// (--mysql, --admin, --writer, --links), with its hint.
func liveInput(e *livereplay.InputError) error {
	switch e.Field {
	case livereplay.FieldServer:
		hint := ""
		switch e.Check {
		case livereplay.CheckDSN:
			hint = dsnHint
		case livereplay.CheckProbe:
			hint = serverProbeHint
		}
		return usageErr(fmt.Errorf("--mysql %s: %w", e.Node, e.Err), hint)
	case livereplay.FieldAdmin, livereplay.FieldWriter, livereplay.FieldProbe:
		if e.Check == livereplay.CheckOpen {
			return usageErr(e.Err, "")
		}
		flag := liveUsers[e.Field].flag
		if e.Field == livereplay.FieldProbe {
			flag = "the probe user of --mysql " + e.Node
		}
		who := fmt.Sprintf("%s %s on %s (%s)", flag, e.User, e.Node, e.Addr)
		switch e.Check {
		case livereplay.CheckLogin:
			return usageErr(fmt.Errorf("%s: %w", who, e.Err), "its password comes from "+liveUsers[e.Field].env)
		case livereplay.CheckLacks:
			return usageErr(fmt.Errorf("%s %w", who, e.Err), grantsHint)
		}
		return usageErr(fmt.Errorf("%s: %w", who, e.Err), "")
	case livereplay.FieldLedger:
		return usageErr(fmt.Errorf("the ledger on %s, the master: %w", e.Node, e.Err), ledgerHint)
	case livereplay.FieldLinks:
		switch e.Check {
		case livereplay.CheckDSN:
			if errors.Is(e.Err, livereplay.ErrHostName) {
				return usageErr(fmt.Errorf("--links %q: %w for --links", e.Addr, e.Err), linksURLHint)
			}
			return usageErr(fmt.Errorf("--links %q: %w", e.Addr, e.Err), linksURLHint)
		case livereplay.CheckControl:
			return usageErr(fmt.Errorf("--links %s: %w", e.Addr, e.Err), linksControlHint)
		}
		return usageErr(fmt.Errorf("--links %s: %w", e.Addr, e.Err), "")
	}
	return usageErr(e, "")
}

// needsLinks is err, from livereplay.ReplicationActions, with what to give when it is a link or
// lag event in a run with no --links (livereplay.ErrNeedsLinks).
func needsLinks(err error) error {
	var fe *fileline.Error
	if errors.As(err, &fe) && errors.Is(fe.Err, livereplay.ErrNeedsLinks) {
		return &fileline.Error{File: fe.File, Line: fe.Line,
			Err: fmt.Errorf("%w: give --links URL, the control API of the proxy with a node REPLICA<-SOURCE for each stream", fe.Err)}
	}
	return err
}
