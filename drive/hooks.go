package drive

import "time"

// wakeAt returns the instant Config.Wake names, Never for none.
func (d *Driver) wakeAt() time.Duration {
	if d.cfg.Wake == nil {
		return Never
	}
	if at, ok := d.cfg.Wake(); ok {
		return at
	}
	return Never
}
