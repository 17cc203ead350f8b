// Package report is what a run tells its reader: the event log as it goes (Printer), in text or
// JSON, and at the end the verdict (Report) and the expectations' results (Printer.Summary).
// A Run is one replay with all of these, and any other observer of it: every command that
// tells a run makes one, gives its observers to the replay, and asks it for the summary.
//
// The verdict answers the question an incident review asks first: did the cluster fail over,
// when, and because of which alarm; and if it did not, why not, node by node: the condition
// maps to an action that never fences, the alarm was reset by a healthy probe before it
// expired, the cluster was in maintenance, the node's manager was down. It is built from the
// run's events and from the alarms' counts read from the engine at ticks, and explains itself
// with the statemap's rules. Its first lines, without their reasons, are its Headline: the
// masters failed, whom each failover promoted, and the replication model, as a value.
//
// The event log and the verdict speak in narrate's words, and are deterministic: the same run
// writes the same bytes. failsim replay writes both for a simulated run (sim.Run), failsim
// watch for a live one.
package report
