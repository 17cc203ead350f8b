// Package monitor runs the failover decision engine live: a probe checker that speaks to a real
// MySQL server the way the Tungsten Manager's checker does, and a real-time runtime that drives
// the same fence engine as the simulator from those probes and a real (or mock) clock.
//
// The checker opens one fresh connection per probe (never a pool), runs one query, sends
// COM_QUIT and closes, all under one time budget that every phase shares: connect, greeting,
// login, query. The socket is wrapped so the checker knows the phase each failure happened in
// and the raw error the driver hides behind ErrInvalidConn, and every outcome is classified into
// one of the statemap's condition names, phase by phase (see Classify).
//
// The runtime is the live adapter around package drive, the scheduler sim.Replay runs on too:
// the driver decides every instant (the probe schedule, the timekeeper every 10 s, manager
// outages, a script's timed actions) and the runtime only makes it real: a clock's timer wakes
// it at the driver's next instant, each probe the driver hands out runs on a goroutine of its
// own and reports its result when it ends, and a probe that ends within 20 ms of real time
// counts at its start, before that instant's tick, as the simulator's refused or reset probes
// do. Unlike the simulator it foresees no probe (every real probe runs) and makes every tick.
// The statemap override is re-read when its file changes. Its time is the engine's virtual
// time: real time since the start, times Speed, so a run at speed 10 prints the same clock as
// the simulator.
//
// The live adapter knows no timeline, proxy, replica or writer: playing a timeline live through
// proxies, with real promotions and a workload, and judging it against the simulator is
// package monitor/livereplay's.
package monitor
