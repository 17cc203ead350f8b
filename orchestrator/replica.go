package orchestrator

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/fault"
)

// Replica is a replica's own replication settings, which decide how soon its I/O thread sees
// that its master is gone and how soon it is back. The zero value is no replica's: start from
// DefaultReplica.
type Replica struct {
	// NetTimeout is slave_net_timeout: how long the I/O thread waits for data from its master
	// before it takes the connection for broken and reconnects; also its connect timeout.
	// MariaDB's default is 60 s
	// (https://mariadb.com/kb/en/replication-and-binary-log-system-variables/#slave_net_timeout).
	NetTimeout time.Duration
	// HeartbeatPeriod is MASTER_HEARTBEAT_PERIOD: how often an idle master sends a heartbeat
	// event, so that an idle link is not taken for broken. Default: half of slave_net_timeout
	// (https://mariadb.com/kb/en/change-master-to/#master_heartbeat_period). > 0.
	HeartbeatPeriod time.Duration
	// ConnectRetry is MASTER_CONNECT_RETRY: the pause between two reconnection attempts.
	// Default 60 s (https://mariadb.com/kb/en/change-master-to/#master_connect_retry).
	ConnectRetry time.Duration
}

// DefaultReplica returns MariaDB's defaults: slave_net_timeout 60 s, a heartbeat every 30 s,
// a reconnection attempt every 60 s.
func DefaultReplica() Replica {
	return Replica{NetTimeout: 60 * time.Second, HeartbeatPeriod: 30 * time.Second, ConnectRetry: 60 * time.Second}
}

// open is what a fault on the master's link does to a replication connection already open.
type open uint8

const (
	stays  open = iota // the connection stays up and the master's heartbeats arrive: Slave_IO_Running stays Yes
	drops              // the connection is reset or closed at once: the I/O thread reconnects at once
	silent             // nothing arrives: the I/O thread's read times out NetTimeout after the last data
)

// connect is what a fault on the master's link does to the I/O thread's reconnection attempt.
type connect uint8

const (
	connects connect = iota // the attempt succeeds at once: Slave_IO_Running Yes again
	fails                   // the attempt fails at once (refused, reset, closed, an ERR packet)
	hangs                   // the attempt hears nothing and fails NetTimeout later, or succeeds when the link heals meanwhile
)

// behaviour maps a fault on the master's database link, as the replica's I/O thread meets it
// (a proxy in front of the master, as docs/proxy.md's modes describe), to what it does to the
// open replication connection and to a reconnection attempt. ok is false for the faults this
// model does not cover: toxiproxy's toxics other than latency (each acts on one stream), and
// probe (a Tungsten probe's forced outcome, which means nothing to a replica).
//
//   - heal, slow: the stream flows (slow holds commands; the binlog dump is one command long
//     sent). A reconnect works.
//   - delay, latency: the stream flows, late by the delay (Lag adds it). A reconnect works.
//   - refuse, reset, close: open connections are reset or closed, so the I/O thread's read
//     fails at once and it reconnects; every attempt is refused, reset or closed.
//   - error CODE: open connections are untouched (docs/proxy.md: "untouched"), so the I/O
//     thread stays connected; a reconnect gets the ERR packet and fails.
//   - freeze, blackhole: open connections stop forwarding, never closed: no heartbeat arrives,
//     and the read times out slave_net_timeout after the last data; a reconnect hears nothing
//     (freeze accepts and never answers, blackhole drops the SYNs) until its connect timeout
//     (slave_net_timeout), or until heal lets it through.
//   - stall: open connections pass the server's bytes (the dump's events and heartbeats); only
//     a new command is held: the EBS case, where the replicas stay connected. A reconnect logs
//     in and its first command hangs until heal.
//   - unreachable, hostdown: no packet of an open connection arrives, as freeze; a reconnect
//     fails at once (no route, host down), as failsim's fault model has every probe do.
func behaviour(f fault.Fault) (open, connect, bool) {
	switch f.Kind {
	case fault.Heal, fault.Slow, fault.Delay:
		return stays, connects, true
	case fault.Latency:
		return stays, connects, true
	case fault.Refuse, fault.Reset, fault.Close:
		return drops, fails, true
	case fault.Error:
		return stays, fails, true
	case fault.Freeze, fault.Blackhole:
		return silent, hangs, true
	case fault.Stall:
		return stays, hangs, true
	case fault.Unreachable, fault.HostDown:
		return silent, fails, true
	}
	return 0, 0, false
}

// Modelled reports whether a fault on a master's link is one the replicas' view models (see
// behaviour); an error names the fault otherwise.
func Modelled(f fault.Fault) error {
	if _, _, ok := behaviour(f); !ok {
		return fmt.Errorf("%s: failsim does not model what this fault does to a replica's I/O thread under orchestrator", f.Kind)
	}
	return nil
}

// LagOf is what fault f on the master's link adds to a connected replica's lag: the delay of
// delay and latency (every byte, its events among them, arrives that much later), 0 otherwise.
func LagOf(f fault.Fault) time.Duration {
	if f.Kind == fault.Delay || f.Kind == fault.Latency {
		return f.Delay
	}
	return 0
}

// Span is a fault on a replica's path to its master from At on, until the next span: the
// master's link fault, or a freeze where the replica's own replication link is frozen.
type Span struct {
	At    time.Duration
	Fault fault.Fault
}

// Change is the I/O thread starting (Running: Slave_IO_Running Yes) or stopping (Connecting)
// at At.
type Change struct {
	At      time.Duration
	Running bool
}

// IOChanges returns, in time order, when the I/O thread of a replica with settings r stops and
// starts running, up to until, given the faults on its path to the master (spans in time order;
// before the first, and from t=0, it is connected and its master's heartbeats come every
// HeartbeatPeriod from the time it connected). A replica whose master does nothing gets only
// heartbeats: a workload's events, which would make the last data later, are not modelled, so
// a silent fault breaks the link at the latest heartbeat before it plus NetTimeout.
//
// A connection under a silent fault breaks NetTimeout after its last data, unless the silence
// ends before; then the first attempt starts at once, and each failed attempt is followed by
// another ConnectRetry after it ended. An attempt under a fault that hangs it ends at the first
// change of fault within NetTimeout (succeeding if the new fault lets connections through,
// failing if it refuses them), or fails at NetTimeout. A span whose fault is not modelled is an
// error naming it.
func IOChanges(r Replica, spans []Span, until time.Duration) ([]Change, error) {
	return IOChangesFrom(r, spans, until, true)
}

// IOChangesFrom is IOChanges for an I/O thread that is connected at t=0 (connected) or starts
// its first connection attempt then (START SLAVE, a repoint, a restart of the I/O thread):
// then the first change is its stop at 0, and the next when it runs.
func IOChangesFrom(r Replica, spans []Span, until time.Duration, connected bool) ([]Change, error) {
	if r.NetTimeout <= 0 || r.HeartbeatPeriod <= 0 || r.ConnectRetry <= 0 {
		return nil, fmt.Errorf("replica settings %v: slave_net_timeout, MASTER_HEARTBEAT_PERIOD and MASTER_CONNECT_RETRY must each be above 0", r)
	}
	for _, s := range spans {
		if err := Modelled(s.Fault); err != nil {
			return nil, err
		}
	}
	at := func(t time.Duration) fault.Fault { // the fault in force at t
		f := fault.Fault{}
		for _, s := range spans {
			if s.At > t {
				break
			}
			f = s.Fault
		}
		return f
	}
	var out []Change
	conn := time.Duration(0) // when the connection now open was made
	i := 0                   // the first span not yet looked at
	for first := true; ; first = false {
		b := time.Duration(0) // when the connection broke: the first attempt starts then
		if first && !connected {
			out = append(out, Change{At: 0, Running: false})
		} else {
			var broke bool
			b, broke, i = breaks(r, spans, conn, i)
			if !broke || b > until {
				return out, nil
			}
			out = append(out, Change{At: b, Running: false})
		}
		// Reconnecting from b on.
		a := b
		for {
			if a > until {
				return out, nil
			}
			_, c, _ := behaviour(at(a))
			ok := false
			switch c {
			case connects:
				ok = true
			case fails:
				a += r.ConnectRetry
			case hangs:
				end := a + r.NetTimeout
				next := end
				for _, s := range spans {
					if s.At > a && s.At < end {
						if _, c2, _ := behaviour(s.Fault); c2 != hangs {
							next = s.At
							if c2 == connects {
								a, ok = s.At, true
							}
							break
						}
					}
				}
				if !ok {
					a = next + r.ConnectRetry
				}
			}
			if ok {
				break
			}
		}
		if a > until {
			return out, nil
		}
		out = append(out, Change{At: a, Running: true})
		conn = a
	}
}

// breaks finds when a connection made at conn breaks, looking at spans from i on: it returns
// the time, whether it breaks at all, and the first span not yet looked at.
func breaks(r Replica, spans []Span, conn time.Duration, i int) (time.Duration, bool, int) {
	for i < len(spans) && spans[i].At <= conn {
		i++
	}
	for i < len(spans) {
		f := spans[i].At
		o, _, _ := behaviour(spans[i].Fault)
		switch o {
		case drops:
			return f, true, i
		case silent:
			last := conn + (f-conn)/r.HeartbeatPeriod*r.HeartbeatPeriod
			end := last + r.NetTimeout
			j := i + 1
			for j < len(spans) && spans[j].At < end {
				if o2, _, _ := behaviour(spans[j].Fault); o2 != silent {
					break
				}
				j++
			}
			if j < len(spans) && spans[j].At < end {
				i = j // the silence ended in time: what comes next decides
				continue
			}
			return end, true, j
		}
		i++
	}
	return 0, false, i
}

// RunningAt reports whether the I/O thread runs at t, given its changes (IOChanges): a change
// at t counts.
func RunningAt(changes []Change, t time.Duration) bool {
	run := true
	for _, c := range changes {
		if c.At > t {
			break
		}
		run = c.Running
	}
	return run
}
