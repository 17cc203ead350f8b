package group

// Input is one thing that happened, which Step tells the group: SetNet, Tick or Reping. The
// set is closed.
type Input interface{ input() }

// Host is one member's host as the network is now, as the simulator made it from its
// partitions, host events and manager stops. The zero value is a host that is up, on segment
// 0, whose manager runs.
type Host struct {
	// Segment says which hosts this one reaches: exactly those on the same segment. Two live
	// managers on one segment hear each other's heartbeats and answer each other's
	// group-communication pings; a host ping from one manager to another host is answered
	// when that host is up and on the pinger's segment.
	Segment int
	// Down: the host is down. It answers no ping and its manager does not run; to the other
	// managers that manager falls silent (it did not say goodbye). Down with Stopped is down.
	Down bool
	// Stopped: the manager was stopped cleanly; the host is up and still answers pings. A
	// manager that stops cleanly leaves every view at once, as a process that closes its
	// sockets does.
	Stopped bool
}

// running reports whether the host's manager runs.
func (h Host) running() bool { return !h.Down && !h.Stopped }

// Net is the network as it is now: one Host per member, in cluster order. A nil Net is every
// host up on one segment with every manager running; any other length panics.
type Net []Host

// SetNet tells the group that the network is now Net. What changes at once is only what a
// manager's process does: a manager that stopped cleanly (Stopped, with its host up) leaves
// every view, and a manager that starts (it was not running, now it is: started again, or its
// host came back) joins at once: the managers it reaches agree on one view with it, as at a
// tick but counting no silence. Otherwise a member that falls silent (its host went down, or
// it is now on another segment) or is heard again changes views only at the ticks. The
// network the same as before: nothing.
type SetNet struct {
	Net Net
}

// Tick is one timekeeper tick (every 10 s of virtual time). At each, in this order: the views
// (a silent member's heartbeat-gap count goes up by one, and it leaves at GapThreshold; a
// member heard again rejoins, its count cleared), the copies of the cluster state that views
// splitting or merging fork or merge, the quorum check of every live manager, the host pings of
// every coordinator, and the failsafe check.
type Tick struct{}

// Reping tells the group that the unanswered host pings of Members fenced nothing (the engine
// was in maintenance, which fences nothing): every coordinator forgets having pinged them, so
// that it pings them anew at the next tick if they are still missing from its view and their
// hosts still do not answer. It decides nothing at once.
type Reping struct {
	Members Set
}

func (SetNet) input() {}
func (Tick) input()   {}
func (Reping) input() {}
