// Package fileline is the one error type for bad input at a position in a file: a timeline, a
// statemap, a proxy config. Every parser in failsim returns it, so a command reports any of
// them the same way, "file:line: what is wrong", and a caller finds the position with
// errors.As whatever the file.
//
// The error says what is wrong with the input and what was expected, in the file's own terms;
// it never names a command-line flag or suggests a command: flags and hints are the CLI's to
// add (cmd/failsim).
package fileline

import "fmt"

// Error is bad input at a line of a file.
type Error struct {
	// File is the file's name as the user gave it (or a stand-in such as "<stdin>").
	File string
	// Line is 1-based; 0 when the error is about the whole file (an empty timeline).
	Line int
	// Err says what is wrong; it never holds File or Line.
	Err error
}

// Error returns "file:line: err", or "file: err" when Line is 0.
func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at line of file, its Err formatted as fmt.Errorf does (so %w
// wraps).
func Errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}
