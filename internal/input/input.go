// Package input reads what failsim is given to read (timelines, statemaps, proxy config
// files, token files, standard input) with a cap on the bytes of each input, so that no input
// can grow the process without bound: a file over its cap is refused with an error naming the
// file and the cap. Device files are refused before they are opened (/dev/zero and
// /dev/urandom never end); regular files, FIFOs and standard input are read. A read stops when
// its context is done, even one blocked on a FIFO that no one writes to.
package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The caps, in bytes, one per kind of input.
const (
	// TimelineMax is a timeline's cap: 1,000,000 events are about 50 MB, and a parsed event
	// costs about as much memory again as its line.
	TimelineMax = 128 << 20
	// StatemapMax is a statemap's cap: every condition with comments is about 4 KB.
	StatemapMax = 1 << 20
	// ConfigMax is a proxy config file's cap: a line per node.
	ConfigMax = 1 << 20
	// TokenMax is a token file's cap: a token is one short line.
	TokenMax = 4 << 10
)

// ErrDevice is why a device file is refused.
var ErrDevice = errors.New("a device, not a file: failsim reads regular files, FIFOs and standard input")

// ErrDirectory is why a directory is refused.
var ErrDirectory = errors.New("a directory, not a file")

// Error is an input refused: the name it was given by, and why (ErrDevice, ErrDirectory or a
// *LimitError).
type Error struct {
	Name string
	Err  error
}

func (e *Error) Error() string { return e.Name + ": " + e.Err.Error() }

// Unwrap returns why the input was refused.
func (e *Error) Unwrap() error { return e.Err }

// LimitError is an input over its cap.
type LimitError struct {
	What string // the kind of input: "timeline", "statemap"
	Max  int64  // the cap in bytes
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("over the %s limit for a %s", Size(e.Max), e.What)
}

// Size writes a byte count as failsim's messages do: "128 MiB", "4 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the file at path, a what of at most max bytes. A missing file is an
// *fs.PathError as os.Open gives it; a device file, a directory or a file over max is an
// *Error. When ctx is done first, ReadFile returns ctx's cause at once, closing the file under
// the read.
func ReadFile(ctx context.Context, path, what string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what the user knows: failsim could not open it
		}
		return nil, err
	}
	if err := check(path, fi, what, max); err != nil {
		return nil, err
	}
	type result struct {
		data []byte
		err  error
	}
	if ctx.Err() != nil { // done already: say so every time, not when select happens to pick it
		return nil, context.Cause(ctx)
	}
	done := make(chan result, 1)
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(path) // a FIFO's open waits for a writer
		if err != nil {
			done <- result{nil, err}
			return
		}
		opened <- f
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			if err := check(path, fi, what, max); err != nil {
				done <- result{nil, err}
				return
			}
		}
		data, err := readAll(path, f, what, max, fi.Size())
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		select {
		case f := <-opened:
			go f.Close() // unblocks a read on a FIFO; never wait for it here
		default:
			// Still in open(2), waiting for a FIFO's writer: the goroutine ends with the
			// process, or when a writer comes.
		}
		return nil, context.Cause(ctx)
	}
}

// check refuses a device, a directory, or a regular file already known to be over max.
func check(name string, fi fs.FileInfo, what string, max int64) error {
	switch mode := fi.Mode(); {
	case mode&fs.ModeDevice != 0:
		return &Error{Name: name, Err: ErrDevice}
	case mode.IsDir():
		return &Error{Name: name, Err: ErrDirectory}
	case mode.IsRegular() && fi.Size() > max:
		return &Error{Name: name, Err: &LimitError{What: what, Max: max}}
	}
	return nil
}

// Read reads r, named name in errors, a what of at most max bytes. When ctx is done first, it
// returns ctx's cause at once; the read itself goes on until r returns (standard input cannot
// be interrupted), so call it only where the process ends soon after.
func Read(ctx context.Context, name string, r io.Reader, what string, max int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	done := make(chan result, 1)
	go func() {
		data, err := readAll(name, r, what, max, 0)
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// readAll reads r to its end, refusing more than max bytes; size is a hint of the length.
func readAll(name string, r io.Reader, what string, max, size int64) ([]byte, error) {
	buf := make([]byte, 0, min(max, size)+512)
	lr := io.LimitReader(r, max+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, &Error{Name: name, Err: &LimitError{What: what, Max: max}}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, err
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
}
