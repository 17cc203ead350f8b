package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// signalled is the cause of a context that a signal cancelled.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string {
	switch s.sig {
	case syscall.SIGINT:
		return "interrupted by SIGINT"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	}
	return "interrupted by signal " + s.sig.String()
}

// signalContext returns a context that the first SIGINT or SIGTERM cancels, with a signalled
// cause. After that first signal the default action is back: a second one ends the process at
// once, whatever it is waiting for. stop releases the signals.
func signalContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(signalled{s.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// interrupted is the error of a replay or check that ctx stopped before its end: an
// interrupted run is not a passing one. It exits 128 plus the signal's number (130 for SIGINT,
// 143 for SIGTERM), or 1 when ctx ended for another reason.
func interrupted(ctx context.Context, what string) error {
	cause := context.Cause(ctx)
	var s signalled
	if errors.As(cause, &s) {
		return &exitError{code: 128 + int(s.sig), err: fmt.Errorf("%s %v: the output above is incomplete", what, s)}
	}
	return &exitError{code: 1, err: fmt.Errorf("%s stopped: %w", what, cause)}
}

// loadErr is the error of a command whose input could not be read: bad input (exit 2), or
// the command interrupted while it waited for the input.
func loadErr(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return interrupted(ctx, what)
	}
	return usageErr(err, "")
}
