package monitor

import (
	"os"
	"time"

	"github.com/failsim/failsim/statemap"
)

// stamp is what tells a statemap file's edit: its modification time and size.
type stamp struct {
	mod  time.Time
	size int64
}

// maybeReload looks at the statemap file once every ReloadEvery and re-reads it when it
// changed. A file that does not load keeps the last good map.
func (r *Runtime) maybeReload() {
	if r.cfg.Statemap == "" || r.clk.Since(r.lastLook) < r.cfg.ReloadEvery {
		return
	}
	r.lastLook = r.clk.Now()
	st, err := statOf(r.cfg.Statemap)
	if err != nil {
		if r.smStamp != (stamp{}) {
			r.log.Warn().Err(err).Msg("statemap unreadable: keeping the last good map")
			r.smStamp = stamp{}
		}
		return
	}
	if st == r.smStamp {
		return
	}
	r.smStamp = st
	m, err := statemap.Load(r.cfg.Statemap)
	if err != nil {
		r.log.Warn().Err(err).Msg("statemap edit rejected: keeping the last good map")
		return
	}
	r.sm = m
	r.e.SetMap(m)
	if r.cfg.OnReload != nil {
		r.cfg.OnReload(r.virtual(), m)
	}
	r.log.Info().Str("statemap", r.cfg.Statemap).Msg("statemap reloaded: new probes follow it; raised alarms keep their threshold")
}

func statOf(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stamp{mod: fi.ModTime(), size: fi.Size()}, nil
}
