package property

import (
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
)

// Set judges several properties over one run as one drive.Observer: what failsim check hangs on
// each trace, and what a timeline's "expect property" line is judged by. It tells each property
// the events of its topics (every event, for a property that is no Subscriber, and for a
// watcher while it looks), and asks it to look at the engine at the end of an instant only when
// it asked to. Its zero value judges none.
type Set struct {
	tr    Trace
	specs []Spec
	props []Property
	// look and on are sets of the properties' indexes, bit i for the i-th: a property is named
	// once, and there are at most 64 (TestSetFitsEveryProperty), so one word holds any set.
	// Event and Instant walk their bits in index order, as a loop over props would, but call
	// only the properties they concern, not every property for every event and instant.
	look    uint64            // the properties that look at the end of this instant
	on      [numTopics]uint64 // per topic, the properties told of its events
	onWatch [numTopics]uint64 // per topic, the watchers told of its events while they look
}

// watcher is a Property that is told every event while it looks at the engine, and otherwise
// only the events of its idle topics: one that needs every event only while it watches for
// something, and that watches only while it asks to look. A Set has a property looking from
// the Event that asked it to until a Look that did not ask to look again; a watcher that did
// not ask to look since watches nothing, so the events of other topics change nothing in it and
// its Event returns false for them, as a Subscriber's does for events outside its topics.
type watcher interface {
	Property
	idleTopics() Topics
}

// NewSet returns the properties specs, fresh, for one run of tr. A property may be named once.
func NewSet(tr Trace, specs ...Spec) (*Set, error) {
	s := &Set{tr: tr, specs: specs, props: make([]Property, 0, len(specs))}
	for i, sp := range specs {
		if slices.ContainsFunc(specs[:i], func(o Spec) bool { return o.Name == sp.Name }) {
			return nil, fmt.Errorf("property %s is named twice", sp.Name)
		}
		p, err := New(sp, tr)
		if err != nil {
			return nil, err
		}
		s.props = append(s.props, p)
		subs, watching := AllTopics, Topics(0)
		switch p := p.(type) {
		case Subscriber:
			subs = p.Topics()
		case watcher:
			subs, watching = p.idleTopics(), AllTopics
		}
		for t := range numTopics {
			if subs&(1<<t) != 0 {
				s.on[t] |= 1 << i
			}
			if watching&(1<<t) != 0 {
				s.onWatch[t] |= 1 << i
			}
		}
	}
	s.look = s.everyone() // every property looks at the engine as the run starts
	return s, nil
}

// Renew makes s's properties fresh for another run of the same Trace, as NewSet made them:
// what they judged of the last run is forgotten. A caller judging run after run on one
// goroutine (failsim check) renews one Set rather than making one a run; a property that can
// be made fresh in place is, reusing its space, and any other is made anew.
func (s *Set) Renew() {
	for i, p := range s.props {
		if r, ok := p.(renewer); ok {
			r.renew(s.tr)
		} else {
			s.props[i], _ = New(s.specs[i], s.tr) // it was made from this spec once: it builds
		}
	}
	s.look = s.everyone()
}

// everyone is the set of all of s's properties.
func (s *Set) everyone() uint64 { return 1<<len(s.props) - 1 }

// renewer is a Property that can be made fresh in place, for another run of tr: exactly as New
// made it, but for the space it reuses.
type renewer interface {
	renew(tr Trace)
}

// Event implements drive.Observer.
func (s *Set) Event(ev act.Event) {
	t := TopicOf(ev)
	for on := s.on[t] | s.onWatch[t]&s.look; on != 0; on &= on - 1 {
		i := bits.TrailingZeros64(on)
		if s.props[i].Event(ev) {
			s.look |= 1 << i
		}
	}
}

// Instant implements drive.InstantObserver.
func (s *Set) Instant(at time.Duration, e fence.View) {
	for look := s.look; look != 0; look &= look - 1 {
		i := bits.TrailingZeros64(look)
		if !s.props[i].Look(at, e) {
			s.look &^= 1 << i
		}
	}
}

// Sparse reports whether the set's verdicts depend only on what is decided and on the engine as
// it stands at the instants at which something is decided, checkpoints and the end, not on
// which other instants the set is told of (drive.Config.Sparse): true unless it judges a
// property whose verdict names the time at which a look found it (no-split-brain,
// minority-shuns-within, majority-keeps-writer-within), which an instant at which nothing is
// decided may move. Of the others, each that looks again while something lasts (self-heal-resets
// while an alarm is held, detects-death-within while it watches a fault) finds at an instant
// at which nothing is decided what it found at the last one at which something was, or a
// deadline that passed, which it reports at the deadline, at whichever instant finds it; and
// each of the rest looks once, at the end of an instant at which something was decided.
func (s *Set) Sparse() bool {
	for _, p := range s.props {
		switch p.(type) {
		case *noSplitBrain, *minorityShuns, *majorityKeepsWriter:
			return false
		}
	}
	return true
}

// Violated reports whether the i-th property of the set, in the order of the specs, is
// violated, and its first violation (Property.Verdict).
func (s *Set) Violated(i int) (bool, string) {
	held, why := s.props[i].Verdict()
	return !held, why
}
