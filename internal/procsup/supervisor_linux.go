package procsup

import (
	"bytes"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killRounds bounds the sweep for descendants: each round kills the children it finds, whose
// own children then come to the supervisor for the next round.
const (
	killRounds    = 5000
	killRoundWait = 2 * time.Millisecond
)

type supervisor struct {
	sig    chan os.Signal
	pid    int
	status syscall.WaitStatus
	done   bool
}

func (s *supervisor) signals() chan os.Signal {
	s.sig = make(chan os.Signal, 16)
	return s.sig
}

func (s *supervisor) start(path string, argv []string) (int, error) {
	p, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// The command gets the default dispositions back, and dies if the supervisor is killed.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, err
	}
	s.pid = p.Pid
	return p.Pid, nil
}

// loop waits for the command to end, reaping whatever else comes to the supervisor. A stop
// signal of the group (SIGTERM, SIGINT, SIGHUP) is for the command, which gets it too: the
// supervisor stays to report how the command ended.
func (s *supervisor) loop() int {
	// A SIGCHLD is coalesced, and one could be lost on a full channel: reap now and then too.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for !s.done {
		var sig os.Signal
		select {
		case sig = <-s.sig:
		case <-tick.C:
			sig = syscall.SIGCHLD
		}
		switch sig {
		case syscall.SIGCHLD:
			s.reap()
		case deathSignal, stopSignal:
			s.killAll()
			if !s.done {
				return 1
			}
			return exitOf(s.status)
		}
	}
	s.killAll()
	return exitOf(s.status)
}

// reap collects every child that has ended, noting the command's status.
func (s *supervisor) reap() (none bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.ECHILD) {
			return true
		}
		if err != nil || pid <= 0 {
			return false
		}
		if pid == s.pid {
			s.status, s.done = ws, true
		}
	}
}

// killAll kills every descendant, round after round, until the supervisor has no child left.
// When it has none already (the command ended alone, the usual end), it reads no /proc: a
// scan of every process on the machine, on the path of each App Server's close.
func (s *supervisor) killAll() {
	if s.reap() {
		return
	}
	self := os.Getpid()
	for range killRounds {
		for _, pid := range children(self) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if s.reap() {
			return
		}
		time.Sleep(killRoundWait)
	}
}

// children lists the processes whose parent is ppid, from /proc.
func children(ppid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	want := strconv.Itoa(ppid)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // state ppid …
		if len(f) >= 2 && f[1] == want {
			out = append(out, pid)
		}
	}
	return out
}

// exitOf passes the command's end on: its exit status, or its fatal signal, raised again on
// the supervisor with the default disposition.
func exitOf(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		return 128 + int(sig)
	}
	return ws.ExitStatus()
}
