package timeline

import (
	"context"
	"errors"
	"io"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/statemap"
)

// StdinName is the name errors give a timeline read from standard input.
const StdinName = "<stdin>"

// LoadFile reads the timeline at path and its effective statemap: the override file
// statemapPath if not "", else the timeline's statemap statement, else the shipped defaults.
// Errors about the timeline name its file and line. It is LoadContext without standard input
// and without a way to stop it.
func LoadFile(path, statemapPath string) (*Timeline, *statemap.Map, error) {
	return LoadContext(context.Background(), path, nil, statemapPath)
}

// LoadContext reads a timeline and its effective statemap as LoadFile does; path "-" reads
// the timeline from stdin, named StdinName in errors, and its statemap statement is then
// relative to the working directory. A timeline may hold at most input.TimelineMax bytes and a
// statemap input.StatemapMax; device files are refused. A statemap statement that names a
// file failsim cannot or will not read is an error at the statement's line. LoadContext
// returns ctx's cause if ctx is done before the inputs are read.
func LoadContext(ctx context.Context, path string, stdin io.Reader, statemapPath string) (*Timeline, *statemap.Map, error) {
	tl, err := ReadContext(ctx, path, stdin)
	if err != nil {
		return nil, nil, err
	}
	if statemapPath != "" || tl.Statemap == "" {
		sm, err := statemap.LoadContext(ctx, statemapPath)
		if err != nil {
			return nil, nil, err
		}
		return tl, sm, nil
	}
	data, err := input.ReadFile(ctx, tl.Statemap, "statemap", input.StatemapMax)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		var refused *input.Error
		if errors.As(err, &refused) {
			err = refused.Err // the statement names the file already
		}
		return nil, nil, &fileline.Error{File: tl.File, Line: tl.StatemapLine, Err: statementError{&statemap.FileError{Path: tl.Statemap, Err: err}}}
	}
	sm, err := statemap.FromBytes(tl.Statemap, data)
	if err != nil {
		return nil, nil, err
	}
	return tl, sm, nil
}

// statementError is the file a statemap statement names that failsim cannot or will not
// read: "statemap PATH: why". It unwraps to the statemap.FileError, so that a caller tells it
// as it tells --statemap's (a missing file gets its hint).
type statementError struct{ *statemap.FileError }

func (e statementError) Error() string { return "statemap " + e.Path + ": " + e.Err.Error() }

func (e statementError) Unwrap() error { return e.FileError }

// ReadContext reads the timeline at path as LoadContext does ("-" for stdin), without its
// statemap: a caller that has the statemap it wants (the shipped defaults for --statemap ”)
// reads no statement's file.
func ReadContext(ctx context.Context, path string, stdin io.Reader) (*Timeline, error) {
	var (
		name = path
		data []byte
		err  error
	)
	if path == "-" {
		name = StdinName
		if stdin == nil {
			return nil, errors.New("timeline \"-\": no standard input to read")
		}
		data, err = input.Read(ctx, name, stdin, "timeline", input.TimelineMax)
	} else {
		data, err = input.ReadFile(ctx, path, "timeline", input.TimelineMax)
	}
	if err != nil {
		return nil, err
	}
	return parseContext(ctx, name, data)
}

// parseContext parses a timeline, returning ctx's cause at once if ctx is done first: a
// timeline near its cap takes seconds to parse. The parse itself runs on and is dropped.
func parseContext(ctx context.Context, name string, data []byte) (*Timeline, error) {
	type result struct {
		tl  *Timeline
		err error
	}
	done := make(chan result, 1)
	go func() {
		tl, err := Parse(name, data)
		done <- result{tl, err}
	}()
	select {
	case r := <-done:
		return r.tl, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
