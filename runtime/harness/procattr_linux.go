package harness

import (
	"os/exec"
	"syscall"
)

// extSysProcAttr puts a turn's command in its own process group (so a stop reaches all it
// spawned) and kills it if the runtime dies, so its turn ends interrupted instead of orphaned.
func extSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// DieWithParent makes cmd's process die with the runtime, so a request-bound command (a
// node's resumed turn) never outlives the process that waits for its answer.
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
