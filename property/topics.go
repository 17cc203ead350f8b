package property

import (
	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/repl"
)

// Topic is a kind of event a property can subscribe to: one per fence.Kind (the engine's
// decisions, numbered by their kind), and after them one each for the echoes and notes of the
// other packages that some property judges. Every other event is TopicOther.
type Topic uint8

// The topics that are not the engine's decisions; a decision's topic is Topic(its fence.Kind).
const (
	TopicFault      Topic = 48 + iota // *act.FaultSet
	TopicFinal                        // repl.Final: the replication model's summary at the end
	TopicGroupState                   // *cluster.GroupState
	TopicSplitBrain                   // *cluster.SplitBrain and *cluster.SplitBrainWidened
	TopicHostPing                     // *cluster.HostPingFailed
	TopicOther                        // anything else
	numTopics
)

// Topics is a set of topics.
type Topics uint64

// AllTopics is every topic: what a property that declares none is told.
const AllTopics = Topics(1<<numTopics - 1)

// Decisions is the topic of every engine decision.
var Decisions = func() Topics {
	var t Topics
	for k := fence.Kind(1); k < 48; k++ {
		t |= 1 << k
	}
	return t
}()

// On returns the set of the topics ts.
func On(ts ...Topic) Topics {
	var s Topics
	for _, t := range ts {
		s |= 1 << t
	}
	return s
}

// OnKinds returns the set of the topics of the decision kinds ks.
func OnKinds(ks ...fence.Kind) Topics {
	var s Topics
	for _, k := range ks {
		s |= 1 << Topic(k)
	}
	return s
}

// Subscriber is a Property that is told only the events of its topics (toxiproxy's optional
// interface style): a Set does not call its Event for any other, so a property costs what it
// judges, not every event of the run. A property without it is told every event.
type Subscriber interface {
	Property
	// Topics is the property's subscription, fixed for the run: its Event returns false and
	// changes nothing for an event of any other topic.
	Topics() Topics
}

// TopicOf is the topic of event ev. A Set asks it of every event of a run, so every event of
// a type it names is told by its concrete type, and the engine's most frequent decisions are
// named too: telling a concrete type is a comparison, where telling a fence.Decision of any
// other type asks the runtime whether the type implements the interface. No type outside
// package fence is a fence.Decision (its clone method is unexported), so the order of the
// cases changes no topic.
func TopicOf(ev act.Event) Topic {
	switch ev := ev.(type) {
	case *act.FaultSet:
		return TopicFault
	case *repl.Final:
		return TopicFinal
	case *cluster.GroupState:
		return TopicGroupState
	case *cluster.SplitBrain, *cluster.SplitBrainWidened:
		return TopicSplitBrain
	case *cluster.HostPingFailed:
		return TopicHostPing
	case *fence.StateChanged:
		return Topic(ev.Kind())
	case *fence.AlarmRaised:
		return Topic(ev.Kind())
	case *fence.AlarmHealed:
		return Topic(ev.Kind())
	case *fence.AlarmExpired:
		return Topic(ev.Kind())
	case *fence.NodeFailed:
		return Topic(ev.Kind())
	case *fence.NodeRecovered:
		return Topic(ev.Kind())
	case fence.Decision:
		if k := ev.Kind(); k < 48 {
			return Topic(k)
		}
	}
	return TopicOther
}
