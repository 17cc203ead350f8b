// Package record is failsim watch's flight recorder: what the live engine decided from, kept
// as timeline files that failsim replay replays to the same decisions.
//
// A recording is a directory of files, each a complete timeline: the cluster line, the checker,
// the start of the watch (every file of a recording shares it, so that its times are the
// watch's), the statemap in force (a copy in the directory, named for its content), each
// probe's outcome as a "probe CONDITION" event at the start of the probe whose outcome changed,
// and the decisions as expect lines. The files are segments of one run: ReadDir joins them
// into one timeline, and only the joined timeline replays to exactly what the live engine
// decided (a later file alone starts its replay from a fresh engine).
//
// Book decides what is written, with no I/O and no clock: Outcome for each outcome the engine
// was given, Decide for each decision, Cut at a rotation. Recorder is the thin adapter that
// writes Book's segments to files off the runtime's loop.
package record
