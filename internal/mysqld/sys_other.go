//go:build !unix

package mysqld

import (
	"os"
	"syscall"
)

func ownGroup() *syscall.SysProcAttr { return nil }

// lock is a no-op: two failsim processes building the program at once may race.
func lock(string) (func(), error) { return func() {}, nil }

func killGroup(p *os.Process) { p.Kill() }
