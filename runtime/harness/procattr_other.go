//go:build !linux

package harness

import "syscall"

// extSysProcAttr puts a turn's command in its own process group; without a parent-death
// signal on this platform, a crashed runtime leaves it to exit on its broken pipes.
func extSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
