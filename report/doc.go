// Package report is what a run tells its reader: the event log as it goes (Printer), in text or
// JSON, and at the end the verdict (Report) and the expectations' results (Printer.Summary).
//
// The verdict answers the question an incident review asks first: did the cluster fail over,
// when, and because of which alarm; and if it did not, why not, node by node: the condition
// maps to an action that never fences, the alarm was reset by a healthy probe before it
// expired, the cluster was in maintenance, the node's manager was down. It is built from the
// run's events and from the alarms' counts read from the engine at ticks, and explains itself
// with the statemap's rules.
//
// The event log and the verdict speak in narrate's words, and are deterministic: the same run
// writes the same bytes. failsim replay writes both for a simulated run (sim.Run), failsim
// watch for a live one.
package report
