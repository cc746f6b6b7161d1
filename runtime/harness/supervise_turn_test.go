//go:build linux

package harness

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// escapeScript leaves two sleeps that are in no process group of the turn: one behind
// setsid, one behind setsid and a double fork (its parent exits at once). Then it waits.
const escapeScript = `setsid sh -c 'sleep 300 & echo $! > a.pid'
setsid sh -c '(sleep 300 & echo $! > b.pid) &'
`

func needSetsid(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid on this machine")
	}
}

// escapedPids reads the sleeps' pids that escapeScript wrote in dir, and checks they live.
func escapedPids(t *testing.T, dir string) []int {
	t.Helper()
	var pids []int
	for _, name := range []string{"a.pid", "b.pid"} {
		pid, err := strconv.Atoi(extTestReadFile(t, filepath.Join(dir, name)))
		if err != nil || extTestDead(pid) {
			t.Fatalf("%s: %d %v", name, pid, err)
		}
		if pgid, _ := syscall.Getpgid(pid); pgid != pid && pgid != sessionOf(pid) {
			t.Fatalf("%s is still in a group of the turn", name)
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		pids = append(pids, pid)
	}
	return pids
}

// sessionOf is the session id of pid (the sixth field of /proc/PID/stat).
func sessionOf(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 4 {
		return -1
	}
	sid, _ := strconv.Atoi(f[3])
	return sid
}

func assertGone(t *testing.T, what string, pids []int) {
	t.Helper()
	for _, pid := range pids {
		extTestEventually(t, what+": pid "+strconv.Itoa(pid)+" gone", func() bool { return extTestDead(pid) })
	}
}

// A process the turn's command moved out of its group and session (setsid, a double fork)
// ends with the turn: when it completes and when it is cancelled.
func TestSetsidProcessesEndWithTheTurn(t *testing.T) {
	t.Parallel()
	needSetsid(t)
	for name, tail := range map[string]string{
		"completed": "while [ ! -e finish ]; do sleep 0.02; done; echo done",
		"cancelled": "echo started > started; exec sleep 300",
	} {
		t.Run(name, func(t *testing.T) {
			x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh(escapeScript + tail)})
			dir := t.TempDir()
			id, err := x.Start(context.Background(), StartRequest{Cwd: dir})
			if err != nil {
				t.Fatal(err)
			}
			extTestSend(t, x, id, "go")
			pids := escapedPids(t, dir)
			if name == "cancelled" {
				extTestReadFile(t, filepath.Join(dir, "started"))
				if _, err := x.Cancel(context.Background(), id); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(filepath.Join(dir, "finish"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			extTestIdle(t, x, id)
			assertGone(t, name, pids)
		})
	}
}

// TestSetsidCrashHelper is the runtime of TestSetsidProcessesEndWithTheRuntime: it starts a
// turn that leaves setsid processes, says so, and waits to be killed.
func TestSetsidCrashHelper(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("EXTTEST_SETSID_DIR")
	if dir == "" {
		t.Skip("helper process of TestSetsidProcessesEndWithTheRuntime")
	}
	x, err := NewExternal(ExternalConfig{Name: "shell", Command: extTestSh(escapeScript + "exec sleep 300")},
		ExternalOptions{TranscriptDir: filepath.Join(dir, "transcripts"), BaseEnv: BaseEnv(os.Environ(), nil)})
	if err != nil {
		t.Fatal(err)
	}
	id, err := x.Start(context.Background(), StartRequest{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Send(context.Background(), id, "go"); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("STARTED\n")
	select {}
}

// The runtime killed with SIGKILL takes the turn's setsid processes with it.
func TestSetsidProcessesEndWithTheRuntime(t *testing.T) {
	t.Parallel()
	needSetsid(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetsidCrashHelper$")
	cmd.Env = append(os.Environ(), "EXTTEST_SETSID_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "STARTED") {
	}
	pids := escapedPids(t, dir)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	assertGone(t, "runtime killed", pids)
}
