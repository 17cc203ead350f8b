// Package check is failsim's property-based tester: it generates random fault traces for a
// cluster from a family (benign, fatal, mixed or partition), replays each through the decision engine under
// a statemap, judges built-in properties over every replay, and shrinks a violating trace to a
// minimal counterexample timeline that failsim replay reproduces.
//
// Everything is deterministic: trace i of a run is generated from its own random source, seeded
// from (seed, i), so the traces, the verdicts and the counterexamples depend on the seed alone,
// never on the number of cores or the order in which workers finish.
//
// The properties themselves live in package property, so that a counterexample's
// "expect property NAME" lines are judged by the same code when the timeline is replayed.
package check
