package livereplay

import (
	"errors"
	"fmt"
	"time"
)

// Field is which of a live replay's inputs an InputError is about.
type Field uint8

// The inputs of a live replay with a workload.
const (
	FieldServer Field = iota + 1 // a node's server, as its DSN names it (ReplServers, ReplayReplConfig.Servers)
	FieldAdmin                   // the user that promotes (ReplayReplConfig.Admin)
	FieldWriter                  // the user that writes the workload (ReplayReplConfig.Writer)
	FieldProbe                   // the probe user of a node's server, its DSN's
	FieldLedger                  // LedgerTable on the master
	FieldLinks                   // the links' proxy (CheckLinksURL, NewProxyLinks)
)

var fieldNames = [...]string{FieldServer: "server", FieldAdmin: "admin", FieldWriter: "writer", FieldProbe: "probe user",
	FieldLedger: "ledger", FieldLinks: "links"}

func (f Field) String() string {
	if int(f) < len(fieldNames) && fieldNames[f] != "" {
		return fieldNames[f]
	}
	return fmt.Sprintf("field(%d)", uint8(f))
}

// Check is what an input failed, in the order a live replay checks them.
type Check uint8

// The checks of a live replay's inputs.
const (
	CheckDSN     Check = iota + 1 // its DSN or URL: not a tcp DSN, not http://IP:PORT
	CheckOpen                     // no checker or pool could be made from it
	CheckProbe                    // a probe with no fault did not end ok
	CheckLogin                    // the user did not log in
	CheckRead                     // the ledger's top id could not be read
	CheckGrants                   // SHOW GRANTS failed
	CheckLacks                    // the user lacks privileges it needs (Err lists them)
	CheckControl                  // the links' proxy's control API did not list its nodes
	CheckStream                   // no link carries a replica's stream (Node the replica)
)

// InputError is an error of the user's input to a live replay with a workload: Field says
// which input, Check what it failed, Node the node whose server or stream it is about, User
// the user's name, Addr the server's address or the links' URL (each "" where it is about
// none), Err what was found. Its message names no command-line flag: a command names its own,
// and its hints, from the fields.
type InputError struct {
	Field Field
	Check Check
	Node  string
	User  string
	Addr  string
	Err   error
}

func (e *InputError) Error() string {
	var who string
	switch e.Field {
	case FieldServer:
		who = e.Node + "'s server"
	case FieldAdmin, FieldWriter, FieldProbe:
		who = fmt.Sprintf("%s %s on %s (%s)", e.Field, e.User, e.Node, e.Addr)
	case FieldLedger:
		who = "the ledger on " + e.Node + ", the master"
	case FieldLinks:
		who = fmt.Sprintf("the links' proxy %q", e.Addr)
	default:
		who = e.Field.String()
	}
	if e.Check == CheckLacks {
		return who + " " + e.Err.Error()
	}
	return who + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// SpeedError is a speed at which a timeline's probe budget cannot be honoured (CheckSpeed):
// Speed the one asked, Max the highest (MaxSpeed), Timeout the probe budget of the timeline
// File, in its virtual time. Its message starts with the word "speed".
type SpeedError struct {
	Speed, Max float64
	File       string
	Timeout    time.Duration
}

func (e *SpeedError) Error() string {
	return fmt.Sprintf("speed %g: at most %g for %s: its probe budget of %v must stay at least %v of real time (%v / %g)",
		e.Speed, e.Max, e.File, e.Timeout, MinBudget, e.Timeout, e.Max)
}

// ErrNeedsLinks is ReplicationActions' refusal, at the event's line, of a replication link or
// lag event in a run with no links' proxy.
var ErrNeedsLinks = errors.New("a replication link or lag is made on the proxy that carries the replica's stream")
