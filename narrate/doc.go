// Package narrate says what a run decided in failsim's words: a virtual instant as a clock
// time (Clock), an event as a line of text (Describe) and as a JSON object (JSON).
//
// Everything that speaks of a run speaks through it: the event log that failsim replay and
// failsim watch print, the verdict, the timeline's expectations, failsim check's properties
// and the live replay's comparison. So an instant or an event reads the same wherever it
// appears, and a violation that failsim check reports names its moment exactly as the event
// log of the replay that reproduces it does. Every function is pure: names are the nodes'
// names in cluster order, which the events' node indices stand for.
package narrate
