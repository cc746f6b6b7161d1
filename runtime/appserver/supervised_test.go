//go:build linux

package appserver

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestZeroUmaskHelper runs in a child process of TestAppServerFilesArePrivateUnderAZeroUmask
// with the umask at 000, as a user's shell may have it: every file the App Server writes
// under CODEX_HOME must still be the user's alone.
func TestZeroUmaskHelper(t *testing.T) {
	t.Parallel()
	if os.Getenv("APPSERVER_ZERO_UMASK") == "" {
		t.Skip("helper process of TestAppServerFilesArePrivateUnderAZeroUmask")
	}
	syscall.Umask(0)
	env := newCodexEnv(t)
	c := env.start(t)
	th := newThread(t, c)
	runTurn(t, c, th.ID, "write your session files")
	_ = c.Close()
	files := 0
	_ = filepath.WalkDir(env.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Mode()&fs.ModeSymlink != 0 || path == env.home {
			return nil // the home is the test's own directory
		}
		files++
		perm := info.Mode().Perm()
		// Codex itself makes installation_id (an id, not a secret) 0644 whatever the umask.
		if d.Name() == "installation_id" {
			perm &^= 0o044
		}
		if perm&0o077 != 0 {
			t.Errorf("%s is %v: readable or writable by others", path, perm)
		}
		return nil
	})
	if files < 3 {
		t.Fatalf("the App Server wrote only %d files", files)
	}
}

func TestAppServerFilesArePrivateUnderAZeroUmask(t *testing.T) {
	t.Parallel()
	newCodexEnv(t) // skips without codex, as the helper would
	cmd := exec.Command(os.Args[0], "-test.run=^TestZeroUmaskHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "APPSERVER_ZERO_UMASK=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestZeroUmaskHelper") {
		t.Fatalf("under umask 000: %v\n%s", err, out)
	}
}

// A process below the App Server that left its group and session (a tool shell calling
// setsid) ends when the App Server is closed; Pid is still the App Server's own.
func TestAppServerSetsidDescendantEndsWithIt(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid on this machine")
	}
	env := newCodexEnv(t)
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "codex")
	script := "#!/bin/sh\nsetsid sh -c 'sleep 300 & echo $! > " + filepath.Join(dir, "sleep.pid") + "'\nexec " + env.bin + ` "$@"` + "\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	env.bin = wrapper
	c := env.start(t)
	b, err := os.ReadFile(filepath.Join(dir, "sleep.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid == 0 {
		t.Fatalf("no sleep pid: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(c.Pid()) + "/cmdline"); !strings.Contains(string(cmdline), "app-server") {
		t.Fatalf("Pid %d is not the App Server: %q", c.Pid(), cmdline)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the sleep is not running: %v", err)
	}
	_ = c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d outlived the App Server", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone reports whether pid has exited (a zombie counts).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}
