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
// The runtime is the live twin of sim.Replay: one probe loop per node at the checker's
// interval (the next probe starts at fence.NextProbeStart), the timekeeper every 10 s, fencing
// only while a coordinator is up, the cluster policy, and the statemap override re-read when
// its file changes. Its time is the engine's virtual time: real time since the start, times
// Speed, so a run at speed 10 prints the same clock as the simulator.
package monitor
