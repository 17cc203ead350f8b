// Package drive runs the decision engine through time: the one scheduler that the simulator
// and the live runtime share, as etcd raft's RawNode is the one state machine its node runs on
// goroutines.
//
// A run is a sequence of instants. At each the order is fixed: the script's timed actions at
// that time (in script order), then the probes that finished (in node order), then the probes
// that start, then those of them that ended at once (in node order), then the timekeeper's
// tick if the instant is one; then the observers look at the engine. Each node's probes start
// at t=0 and then at fence.NextProbeStart; a node whose manager is down starts none, and its
// probe under way is lost; when its manager comes back a probe starts at once.
//
// The Driver is pure: it does no I/O, reads no clock and starts no goroutine. It says when it
// next needs to run (Next); the adapter runs that instant when its own clock gets there: Begin
// applies what is due and hands out the faults to make real and the probes to start (Work),
// Report takes a probe's outcome whenever the adapter learns it, and Close ends the instant.
// The simulator knows every outcome at the probe's start, reports it at once and jumps its
// virtual clock to the next instant; the live runtime starts each probe on a goroutine,
// reports its outcome when it ends, and sleeps on a clock's timer until the next instant. A
// probe that ends at once (in the simulator, Took 0; live, under a grace of real time)
// counts at its start instant, before that instant's tick: so an instant has two phases, and
// the adapter closes it once those outcomes are in.
//
// Two shortcuts make a simulated run cost what changes rather than the span it covers, and
// both leave every decision as it was: a tick at which no alarm can expire is not made but
// accounted for with the next one (fence.Engine.Ticks), and, when the adapter gives the driver
// the fault model (Config.Foresee), a probe that would change nothing is not run
// (fence.Engine.Steady). A live run foresees nothing: its probes are real and are all run.
// Observers that judge only what is decided, and the engine where something is, may let a
// simulated run go further (Config.Sparse): a node's probes that change nothing are skipped
// past other nodes' fault changes too, a probe's start that decides nothing is done ahead,
// where nothing can change the node's view by then, rather than at an instant of its own, and
// no instant at which nothing is decided is told to them.
package drive
