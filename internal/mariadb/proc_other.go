//go:build !linux

package mariadb

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
