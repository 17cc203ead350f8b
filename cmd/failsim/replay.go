package main

import (
	"context"
	"fmt"

	"github.com/failsim/failsim/sim"
)

func (m *Main) runReplay(ctx context.Context, args []string) error {
	fs := m.newFlags("replay", "[--statemap FILE] [--format text|json] FILE")
	smFlag := fs.String("statemap", "", "statemap override `FILE` (wins over the timeline's statemap statement)")
	format := fs.String("format", "text", "output format: text or json")
	level := logLevelFlag(fs)
	live := fs.Bool("live", false, "replay live through one proxy per node in front of --mysql, and compare with the simulator")
	mysqlDSN := fs.String("mysql", "", "with --live: the real server's `DSN`, e.g. 'probe:PASSWORD@tcp(127.0.0.1:3306)/'; without it, an in-process server on a free loopback port")
	speed := fs.Float64("speed", 10, "with --live: how many times faster than the timeline to run")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := m.newLogger(*level)
	if err != nil {
		return err
	}
	f, err := parseFormat(*format)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr(fmt.Errorf("replay takes one timeline file, got %d arguments", fs.NArg()), "failsim replay testdata/incidents/ebs-stall.timeline")
	}
	tl, sm, err := sim.LoadFile(fs.Arg(0), *smFlag)
	if err != nil {
		return usageErr(err, "")
	}
	if *live {
		return m.runReplayLive(ctx, fs.Arg(0), tl, sm, *mysqlDSN, *speed, f, log)
	}
	log.Debug().Str("timeline", tl.File).Int("events", len(tl.Events)).Msg("replaying")
	results, err := sim.Run(ctx, m.Stdout, f, tl, sm)
	if err != nil {
		return err
	}
	for _, r := range results {
		if !r.Held {
			return failedErr()
		}
	}
	return nil
}
