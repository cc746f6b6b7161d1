package harness

import (
	"os/exec"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/internal/procsup"
)

// superviseTurn rewrites cmd (built by exec.Command, not started) to run under the process
// supervisor where the platform has one: the turn's command and everything it starts, even
// after setsid or a double fork, end with the turn, a cancel, or the runtime. It reports
// whether cmd is supervised.
func superviseTurn(cmd *exec.Cmd) bool {
	ok, _, _ := procsup.Wrap(cmd, procsup.Options{})
	return ok
}

// killTurn ends a turn's process now. A supervised one is asked to kill what is below it
// first (a SIGKILL of the group would kill the supervisor before it could), with grace to do
// so; then the group is killed, which also covers an unsupervised command. waitc yields the
// result of Wait; killTurn returns it.
func killTurn(p *extProc, waitc <-chan error, grace time.Duration) error {
	if p.supervised && procsup.Stop(p.pgid) == nil {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case err := <-waitc:
			_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
			return err
		case <-t.C:
		}
	}
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	return <-waitc
}
