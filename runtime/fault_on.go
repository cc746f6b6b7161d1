//go:build faultpoints

package runtime

import (
	"os"
	"syscall"
)

// faultPoint kills the process at the point named by CODEXHOST_TEST_FAULT, so crash tests
// can stop the runtime exactly there. Only test builds (-tags faultpoints) contain it.
func faultPoint(point string) {
	if os.Getenv("CODEXHOST_TEST_FAULT") == point {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}
