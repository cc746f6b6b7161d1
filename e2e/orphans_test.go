package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// groupMembers lists the live (not zombie) processes of process group pgid.
func groupMembers(pgid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
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
		f := strings.Fields(string(b[i+1:])) // state ppid pgrp …
		if len(f) >= 3 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// A harness turn's whole process tree ends when the runtime is killed with SIGKILL: the
// `sleep 300` its shell started does not live on under PID 1.
func TestRuntimeSIGKILLLeavesNoTurnProcess(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{
		"spawner": {"sh", "-c", `sleep 300 & echo $! > sleep.pid; wait`}}})
	token := h.addClient("bot")
	dir := t.TempDir()
	h.delegate(token, "--harness", "spawner", "--task", "spawn", "--cwd", dir)
	var sleepPid int
	deadline := time.Now().Add(cliTimeout)
	for sleepPid == 0 && time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "sleep.pid")); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			sleepPid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if sleepPid == 0 {
		t.Fatal("the turn did not start its sleep")
	}
	pgid, err := syscall.Getpgid(sleepPid)
	if err != nil {
		t.Fatal(err)
	}
	if pgid == h.serve.Process.Pid {
		t.Fatal("the turn runs in serve's own process group")
	}
	if len(groupMembers(pgid)) < 2 {
		t.Fatalf("the turn's group %d has %v", pgid, groupMembers(pgid))
	}
	h.stop(syscall.SIGKILL)
	deadline = time.Now().Add(stopTimeout)
	for len(groupMembers(pgid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := groupMembers(pgid); len(left) > 0 {
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("processes of the turn's group %d outlived the runtime: %v", pgid, left)
	}
}
