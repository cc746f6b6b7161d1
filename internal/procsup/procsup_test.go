//go:build linux

package procsup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The command starts with the umask asked for, whatever this process has.
func TestWrapSetsTheUmask(t *testing.T) {
	cmd := exec.Command("sh", "-c", "umask")
	if ok, _, err := Wrap(cmd, Options{Umask: Umask(0o077)}); !ok || err != nil {
		t.Fatalf("Wrap: %v %v", ok, err)
	}
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "0077" {
		t.Fatalf("umask under the supervisor: %q %v", out, err)
	}
}

// Stop ends the command and a process that left its group and session; the reported pid is
// the command's, and the command's end (a signal) is the supervisor's.
func TestStopEndsEverythingBelow(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid on this machine")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	cmd := exec.Command("sh", "-c", "setsid sh -c 'sleep 300 & echo $! > "+pidFile+"'; exec sleep 300")
	ok, report, err := Wrap(cmd, Options{ReportPid: true})
	if !ok || err != nil {
		t.Fatalf("Wrap: %v %v", ok, err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	CloseChildEnds(cmd)
	b := make([]byte, 32)
	n, _ := report.Read(b)
	report.Close()
	shPid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || shPid == cmd.Process.Pid {
		t.Fatalf("reported pid %q", b[:n])
	}
	var sleepPid int
	for deadline := time.Now().Add(10 * time.Second); sleepPid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			sleepPid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	if sleepPid == 0 {
		t.Fatal("no sleep started")
	}
	t.Cleanup(func() { _ = syscall.Kill(sleepPid, syscall.SIGKILL) })
	if err := Stop(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || !ee.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("the supervisor ended with %v, want the command's signal", err)
	}
	for _, pid := range []int{shPid, sleepPid} {
		if err := syscall.Kill(pid, 0); err == nil {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(b), ") Z") {
				t.Fatalf("pid %d outlived Stop", pid)
			}
		}
	}
}

// A command that ends on its own leaves nothing running: what it started in the background,
// out of its group, comes to the supervisor and is killed before the supervisor exits.
func TestCommandEndingAloneTakesWhatItLeft(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid on this machine")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", "setsid sh -c 'sleep 300 & echo $! > "+pidFile+"'; exit 3")
	ok, _, err := Wrap(cmd, Options{})
	if !ok || err != nil {
		t.Fatalf("Wrap: %v %v", ok, err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	CloseChildEnds(cmd)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("the supervisor ended with %v, want the command's exit 3", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	sleepPid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q", b)
	}
	t.Cleanup(func() { _ = syscall.Kill(sleepPid, syscall.SIGKILL) })
	if err := syscall.Kill(sleepPid, 0); err == nil {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(sleepPid) + "/stat"); !strings.Contains(string(b), ") Z") {
			t.Fatalf("pid %d outlived the command's supervisor", sleepPid)
		}
	}
}
