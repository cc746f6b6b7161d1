package harness

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// A turn's command runs under a small supervisor, this very binary re-executed with
// turnShimArg0 as its argv[0]: the supervisor leads the turn's process group, gets a signal
// from the kernel when the runtime dies (even by SIGKILL: PR_SET_PDEATHSIG), and then kills the
// whole group, grandchildren included. A parent-death signal on the command alone would end
// only the command, and `sleep 300` started by it would live on under PID 1.
//
// The supervisor is selected by argv[0] rather than by a subcommand or an environment variable
// so that it works in every binary that links this package (the runtime's tests too) and adds
// nothing to the environment the command sees.
const turnShimArg0 = "codexhost-turn-supervisor"

// turnShimDeathSignal is the parent-death signal of the supervisor; it must be catchable.
const turnShimDeathSignal = syscall.SIGUSR1

func init() {
	if len(os.Args) > 0 && os.Args[0] == turnShimArg0 {
		os.Exit(runTurnShim(os.Args[1:]))
	}
}

// superviseTurn rewrites cmd (built by exec.Command, not started) to run under the
// supervisor. A command that could not be resolved is left as it is, to fail in Start.
func superviseTurn(cmd *exec.Cmd) {
	if cmd.Err != nil || cmd.Path == "" {
		return
	}
	if _, err := exec.LookPath(cmd.Path); err != nil {
		return // not an executable file: Start reports it as before
	}
	args := append([]string{turnShimArg0, strconv.Itoa(os.Getpid()), cmd.Path}, cmd.Args...)
	// /proc/self/exe is this binary even if its file was replaced or removed since it started.
	cmd.Path, cmd.Args = "/proc/self/exe", args
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: turnShimDeathSignal}
}

// runTurnShim is the supervisor: args are the runtime's pid, the command's path and its argv.
// It returns the command's exit status, or dies of the signal that ended the command.
func runTurnShim(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "codexhost turn supervisor: missing arguments")
		return 2
	}
	parent, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "codexhost turn supervisor: bad parent pid")
		return 2
	}
	died := make(chan os.Signal, 1)
	signal.Notify(died, turnShimDeathSignal)
	// The group's SIGTERM (a cancel) is for the command, which gets it too: the supervisor
	// stays to report how the command ended. Caught, not ignored: an ignored signal would
	// stay ignored in the command across exec.
	stopSignals := make(chan os.Signal, 4)
	signal.Notify(stopSignals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	killGroup := func() { _ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL) }
	if os.Getppid() != parent {
		killGroup() // the runtime died before the death signal was armed
		return 1
	}
	cmd := exec.Command(args[1])
	cmd.Args = args[2:]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The command gets the default dispositions back, and dies if the supervisor is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "codexhost turn supervisor: %v\n", err)
		return 127
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-died:
		killGroup()
		return 1
	case err := <-exited:
		return shimExit(err)
	}
}

// shimExit passes the command's end on: its exit status, or its fatal signal, raised again
// on the supervisor with the default disposition.
func shimExit(err error) int {
	if err == nil {
		return 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return 1
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		return 128 + int(sig)
	}
	return ee.ExitCode()
}
