// Package livereplay plays a timeline live and judges the live run against the simulated one:
// the use case on top of the live adapter (package monitor). LiveReplay puts one failsim proxy
// per node in front of one real server and sets the timeline's faults on them; ReplayRepl, for
// a timeline with a workload, runs on one real server per node, writes the workload through
// package writer, promotes for real at each failover (package replica) and makes the
// timeline's replication events real. Compare, CompareStates and CompareReplication set the
// live decisions, state changes and client's view beside the simulator's, within one tick;
// LiveExpectations judges the timeline's expect lines over the live run.
//
// Its errors say what was wrong in typed fields (the node, the user, the field); the command
// names its flags and hints when it prints them.
package livereplay
