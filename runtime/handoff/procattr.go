package handoff

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs cmd in its own process group, killed whole when its context ends.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
