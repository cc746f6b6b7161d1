//go:build !linux

package procsup

import (
	"errors"
	"os"
	"os/exec"
)

// Wrap does nothing here: without a parent-death signal and a subreaper there is no
// supervisor.
func Wrap(cmd *exec.Cmd, o Options) (bool, *os.File, error) { return false, nil, nil }

// CloseChildEnds does nothing here.
func CloseChildEnds(cmd *exec.Cmd) {}

// Stop fails here: there is no supervisor to ask.
func Stop(pid int) error { return errors.New("no process supervisor on this platform") }
