package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/record"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// recordFlags are watch's flight recorder's flags.
type recordFlags struct {
	dir, rotate, maxSize string
	flags                *pflag.FlagSet // to tell a flag given from its default
}

func (o *recordFlags) register(f *pflag.FlagSet) {
	o.flags = f
	f.StringVar(&o.dir, "record", "", "record what the engine decided from into `DIR`, as timeline files that 'failsim replay DIR' replays to the same decisions")
	f.StringVar(&o.rotate, "record-rotate", "1h", "with --record: close a file and start the next every `PERIOD` of clock time, 1h or 24h")
	f.StringVar(&o.maxSize, "record-max-size", "8MiB", "with --record: close a file and start the next once it reaches `SIZE` (bytes, or with KiB, MiB or GiB)")
}

// start starts the recorder --record asks for; nil, which records nothing, when --record is not
// given. Its flags are checked first: a bad one is exit 2.
func (o *recordFlags) start(h record.Header, sm *statemap.Map, override bool, metrics *monitor.Metrics, log zerolog.Logger) (*record.Recorder, error) {
	var every time.Duration
	switch o.rotate {
	case "1h":
		every = time.Hour
	case "24h":
		every = 24 * time.Hour
	default:
		return nil, usageErr(fmt.Errorf("--record-rotate %q: want 1h or 24h", o.rotate), "")
	}
	size, err := parseSize(o.maxSize)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--record-max-size %q: %w", o.maxSize, err), "--record-max-size 8MiB")
	}
	if o.dir == "" {
		for _, name := range []string{"record-rotate", "record-max-size"} {
			if o.flags != nil && o.flags.Changed(name) {
				return nil, usageErr(fmt.Errorf("--%s needs --record", name), "failsim watch --record DIR --"+name+" ...")
			}
		}
		return nil, nil
	}
	rec, err := record.New(record.Config{Dir: o.dir, Header: h, Map: sm, Override: override, Rotate: every, MaxSize: size, Log: log, Registry: metrics.Registry()})
	if err != nil {
		return nil, usageErr(fmt.Errorf("--record: %w", err), "")
	}
	log.Info().Str("dir", o.dir).Str("rotate", o.rotate).Int64("max_size", size).Msg("recording")
	return rec, nil
}

// recordHeader is what each file of watch's recording states first.
func recordHeader(targets []monitor.Node, interval, timeout time.Duration, start time.Time, pol fence.Policy) record.Header {
	h := record.Header{Interval: interval, Timeout: timeout, Start: start.Round(0), Policy: pol}
	for _, t := range targets {
		h.Nodes = append(h.Nodes, fence.NodeConfig{Name: t.Name, Role: t.Role})
	}
	return h
}

// parseSize reads a size in bytes: digits, then nothing or KiB, MiB or GiB.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("want a positive number of bytes, KiB, MiB or GiB, at most 1TiB")
	}
	return n * mult, nil
}

// isRecording reports whether path is a directory, read as a recording of failsim watch.
func isRecording(path string) bool { return record.IsDir(path) }

// loadRecording is loadTimeline for a directory: a recording of failsim watch, its files
// joined into one run (record.LoadDir).
func loadRecording(ctx context.Context, dir, smFlag string, set bool) (*timeline.Timeline, *statemap.Map, error) {
	if set && smFlag == "" {
		tl, err := record.ReadDir(ctx, dir)
		if err != nil {
			return nil, nil, err
		}
		return tl, statemap.Default(), nil
	}
	return record.LoadDir(ctx, dir, smFlag)
}

// readIncident reads the incident at path for statemap diff: a timeline file, or a directory
// of recordings joined into one run.
func readIncident(ctx context.Context, path string) (*timeline.Timeline, error) {
	if record.IsDir(path) {
		return record.ReadDir(ctx, path)
	}
	data, err := input.ReadFile(ctx, path, "timeline", input.TimelineMax)
	if err != nil {
		return nil, err
	}
	return timeline.Parse(path, data)
}
