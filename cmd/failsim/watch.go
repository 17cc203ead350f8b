package main

import (
	"context"
	"errors"
)

// runWatch is being built; see the open issue.
func (m *Main) runWatch(ctx context.Context, args []string) error {
	return usageErr(errors.New("watch: not built yet"), "")
}
