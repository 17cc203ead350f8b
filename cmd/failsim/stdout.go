package main

import (
	"errors"
	"io"
)

// stickyWriter is a writer that keeps its first error and refuses every write after it, so that
// a command printing in many small writes (fmt.Fprintf, io.WriteString) checks once, at its
// end.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	s.err = err
	return n, err
}

// checkedStdout runs run with m's Stdout behind a stickyWriter and returns run's error or, when
// run has none to report (it succeeded, or found a violation: exit 0 or 1), the write error: an
// output that did not reach its reader (a full disk, a closed pipe) is no verdict, and exits 2.
// An interruption or bad input stays what run said. replay and statemap check their writes
// themselves; check, merge and sweep print through this.
func (m *Main) checkedStdout(run func(*Main) error) error {
	w := &stickyWriter{w: m.Stdout}
	c := *m
	c.Stdout = w
	err := run(&c)
	if w.err == nil {
		return err
	}
	var ee *exitError
	if err == nil || errors.As(err, &ee) && ee.code == 1 {
		return w.err // as replay reports it: "write /dev/stdout: no space left on device"
	}
	return err
}
