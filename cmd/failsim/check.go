package main

import (
	"context"
	"errors"
)

// runCheck is being built; see the open issue.
func (m *Main) runCheck(ctx context.Context, args []string) error {
	return usageErr(errors.New("check: not built yet"), "")
}
