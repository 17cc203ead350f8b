// Package timeline is failsim's incident format: a cluster, its checker's settings, timed
// events and expectations, one statement a line, as README.md's "The timeline format"
// describes it. Parse reads one into a Timeline; LoadFile and LoadContext read one from a file
// or standard input with its effective statemap, ReadContext without it. Format writes a
// Timeline back as text that Parse reads to the same timeline: failsim check's counterexamples
// are written with it.
//
// A Timeline is data. Its events are the driver's script as they are (act.Action), with the
// line that states each; its expectations are specs (Expect: a kind and its arguments), never
// observers, so one parsed timeline can be replayed any number of times with the same
// verdicts: package expect makes fresh observers of them for each replay. Node names are
// resolved to indices in cluster order when the file is read, so a replay looks nothing up.
//
// Every error names the file and the line, as a *fileline.Error, and says what was expected:
// the "want" lists come from one table of the statements' forms (grammar.go), and a misspelled
// statement, fault or node event gets fault.NearestName's "did you mean". Times in errors
// read as the event log writes them: Clock, the clock syntax this package owns and the event
// log, the reports and the properties' verdicts write.
package timeline
