//go:build !linux

package harness

import (
	"os/exec"
	"syscall"
)

// extSysProcAttr puts a turn's command in its own process group; without a parent-death
// signal on this platform, a crashed runtime leaves it to exit on its broken pipes.
func extSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// DieWithParent does nothing here: the platform has no parent-death signal.
func DieWithParent(cmd *exec.Cmd) {}
