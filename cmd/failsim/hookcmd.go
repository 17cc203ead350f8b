package main

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// hookCmd runs a hook's command (--on-failover, --on-divergence) in the background: sh -c in a
// process group of its own, with env added to watch's environment, its output on stderr,
// killed with everything it started after timeout. log carries the event's fields; flag names
// the hook in its messages.
type hookCmd struct {
	flag    string // "--on-failover"
	cmd     string
	timeout time.Duration // a command still running after it is killed
	stderr  io.Writer
	wg      sync.WaitGroup
}

// run starts the command for one event.
func (h *hookCmd) run(log zerolog.Logger, env ...string) {
	cmd := exec.Command("sh", "-c", h.cmd)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so that a kill takes what it started too
	cmd.WaitDelay = time.Second                           // a child that keeps stderr open does not hold Wait
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = h.stderr, h.stderr
	if err := cmd.Start(); err != nil {
		log.Error().Err(err).Msg(h.flag + ": could not start the command")
		return
	}
	h.wg.Add(1)
	var killed atomic.Bool
	kill := time.AfterFunc(h.timeout, func() {
		killed.Store(true)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	go func() {
		defer h.wg.Done()
		err := cmd.Wait()
		kill.Stop()
		switch {
		case killed.Load():
			log.Warn().Dur("timeout", h.timeout).Msg(h.flag + " command still running after " + h.flag + "-timeout: killed")
		case err != nil:
			log.Error().Err(err).Msg(h.flag + " command failed")
		}
	}()
}

// wait waits for the commands still running.
func (h *hookCmd) wait() { h.wg.Wait() }
