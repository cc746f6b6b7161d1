package harness

import "syscall"

// extSysProcAttr puts a turn's command in its own process group (so a stop reaches all it
// spawned) and kills it if the runtime dies, so its turn ends interrupted instead of orphaned.
func extSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
