// Package expect judges a timeline's expectations over a replay.
//
// A parsed timeline holds its expect statements as data (timeline.Expect); NewSet makes a fresh
// observer of each for one replay, so a timeline can be replayed twice, or by two goroutines at
// once, with the same verdicts. Each observer is told the replay's events and instants like any
// drive.Observer and keeps only what its verdict needs: the failovers it saw, whether a master
// was missing within its window, what a node showed at a time. A property statement ("expect
// property NAME") is judged by package property, with the very observer failsim check uses.
//
// The verdicts speak in the event log's words (package narrate): a failed expectation says
// what happened instead, with its clock times.
package expect
