package group

import (
	"fmt"
	"time"
)

// Decision is one thing the group decided: one of the struct types below, values carrying
// only their own fields, members named by index. The set is closed: a consumer's type switch
// over them is complete. Every Decision has the time it was made (When) and a Kind. Ready hands
// them out, oldest first; package cluster tells a run's observers of them as its own events.
type Decision interface {
	// When is the virtual time since the start at which it was decided.
	When() time.Duration
	// Kind says which decision it is, for a name or a counter.
	Kind() Kind
	decision()
}

// Kind names a kind of Decision. The zero value is no kind.
type Kind uint8

// The decision kinds, one for each Decision type.
const (
	KindSilent Kind = iota + 1
	KindHeardAgain
	KindLeft
	KindJoined
	KindForked
	KindMerged
	KindQuorum
	KindHostPing
	KindFailsafeShun
	numKinds
)

var kindNames = [numKinds]string{
	KindSilent: "silent", KindHeardAgain: "heard-again", KindLeft: "left", KindJoined: "joined",
	KindForked: "copy-forked", KindMerged: "views-merged", KindQuorum: "quorum",
	KindHostPing: "host-ping", KindFailsafeShun: "failsafe-shun",
}

// String is the kind's stable name, such as "left".
func (k Kind) String() string {
	if k > 0 && k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Why says why a member left or joined a view.
type Why uint8

const (
	// WhyStopped: the member's manager stopped cleanly and left every view at once.
	WhyStopped Why = iota + 1
	// WhySilent: the member was silent for GapThreshold ticks.
	WhySilent
	// WhyStarted: the member's manager started (again, or its host came back) and joined at
	// once the views of the managers it reaches.
	WhyStarted
	// WhyHeard: the member, out of the view, was heard again at a tick.
	WhyHeard
)

// String is "manager stopped", "silent", "manager started" or "heard again".
func (w Why) String() string {
	switch w {
	case WhyStopped:
		return "manager stopped"
	case WhySilent:
		return "silent"
	case WhyStarted:
		return "manager started"
	case WhyHeard:
		return "heard again"
	}
	return fmt.Sprintf("why(%d)", uint8(w))
}

// Silent: at a tick, Member, in Manager's view, was not heard: its heartbeat-gap count is now
// Count, below Threshold (at Threshold it leaves: Left).
type Silent struct {
	At              time.Duration
	Manager, Member int
	Count           int
	Threshold       int
}

// HeardAgain: Member, silent in Manager's view for Count ticks, was heard again before it
// left: at a tick, or at once when its manager started again (its host came back). Its count
// is cleared.
type HeardAgain struct {
	At              time.Duration
	Manager, Member int
	Count           int // the count it had reached
}

// Left: Member left Manager's view: its manager stopped (Why WhyStopped), or it was silent for
// Count ticks (WhySilent, Count the gap threshold).
type Left struct {
	At              time.Duration
	Manager, Member int
	Why             Why
	Count           int // silent ticks; 0 for WhyStopped
}

// Joined: Member joined Manager's view: Member's manager started (Why WhyStarted), or Manager's
// did and found Member in the view it joined (WhyStarted too), or Member, out of the view, was
// heard again at a tick (WhyHeard).
type Joined struct {
	At              time.Duration
	Manager, Member int
	Why             Why
}

// Forked: the live managers Members, whose views split from those of the other holders of
// copy From, now hold their own copy Copy of the cluster state, a clone of From's. A consumer
// that keeps the copies clones From into Copy.
type Forked struct {
	At      time.Duration
	Copy    int
	From    int
	Members Set
}

// Source is one of the copies the members of merging views held.
type Source struct {
	Copy    int  // the copy
	Members Set  // the live managers of the merged view that held it
	Primary bool // the view of its holders was primary before the merge
}

// Merged: the views of the live managers Members merged; they held the copies Sources (in
// the order of their first members) and now hold one, Copy, which is Sources[Adopted]'s: the
// copy of the side that was primary, or if several or none were, the side of the first member
// in cluster order (the adoption rule, decided here). Copy is Sources[Adopted].Copy unless
// another view also took that copy at this step: then it is a new one. A consumer that keeps
// the copies merges them into Copy with the adopted one's winning (fence.MergeCopies, which
// also keeps each node's own FAILSAFE-SHUN and lists the conflicts the adoption overwrote).
type Merged struct {
	At      time.Duration
	Copy    int
	Members Set
	Sources []Source
	Adopted int // index in Sources
}

// Quorum: Digest.Manager's quorum check concluded anew: its view, the members it validated or
// the rule that concluded changed since its last check (a check that concludes the same as
// the one before, as at most ticks, is not told). Digest carries the counts the manager logs.
type Quorum struct {
	At     time.Duration
	Digest Digest
}

// HostPing: coordinator Coordinator host-pinged database member Member, missing from its view.
// Answered false: the host is down or out of reach, and the member is host-failed (a replica
// is failed, a master failed over). Answered true: only its manager is gone, and it is not
// fenced. Told when the coordinator pings it first (it went missing, or the manager became
// coordinator) and whenever the answer changes; not again at every tick.
type HostPing struct {
	At          time.Duration
	Coordinator int
	Member      int
	Answered    bool
}

// FailsafeShun: Manager's view was not primary for Ticks (the failsafe threshold) ticks in a
// row: it shuns its own datasource (state shunned, reason failsafe). Told once per run of
// non-primary ticks; never for a witness, which holds no datasource.
type FailsafeShun struct {
	At      time.Duration
	Manager int
	Ticks   int
}

func (d Silent) When() time.Duration       { return d.At }
func (d HeardAgain) When() time.Duration   { return d.At }
func (d Left) When() time.Duration         { return d.At }
func (d Joined) When() time.Duration       { return d.At }
func (d Forked) When() time.Duration       { return d.At }
func (d Merged) When() time.Duration       { return d.At }
func (d Quorum) When() time.Duration       { return d.At }
func (d HostPing) When() time.Duration     { return d.At }
func (d FailsafeShun) When() time.Duration { return d.At }

func (Silent) Kind() Kind       { return KindSilent }
func (HeardAgain) Kind() Kind   { return KindHeardAgain }
func (Left) Kind() Kind         { return KindLeft }
func (Joined) Kind() Kind       { return KindJoined }
func (Forked) Kind() Kind       { return KindForked }
func (Merged) Kind() Kind       { return KindMerged }
func (Quorum) Kind() Kind       { return KindQuorum }
func (HostPing) Kind() Kind     { return KindHostPing }
func (FailsafeShun) Kind() Kind { return KindFailsafeShun }

func (Silent) decision()       {}
func (HeardAgain) decision()   {}
func (Left) decision()         {}
func (Joined) decision()       {}
func (Forked) decision()       {}
func (Merged) decision()       {}
func (Quorum) decision()       {}
func (HostPing) decision()     {}
func (FailsafeShun) decision() {}
