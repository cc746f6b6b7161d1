package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Child processes are this test binary re-executed with childEnv naming what to do; see
// runChild.
const (
	childEnv     = "CODEXHOST_STORE_TEST_CHILD"
	childHomeEnv = "CODEXHOST_STORE_TEST_HOME"
)

func TestMain(m *testing.M) {
	// Badger's files come out 0644 under the common umask 022 (0666 &^ 022); run every test,
	// and every child, under it so the mode tests see the fix work, whatever the caller's umask.
	syscall.Umask(0o022)
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode, os.Getenv(childHomeEnv)))
	}
	os.Exit(m.Run())
}

type note struct {
	Record
	Text string `json:"text"`
}

func runChild(mode, home string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	s, err := Open(home, Options{Log: os.Stderr})
	if err != nil {
		return fail(err)
	}
	switch mode {
	case "hold":
		// Hold the home until the parent closes our stdin.
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := s.Close(); err != nil {
			return fail(err)
		}
		return 0
	case "threads":
		// Records that stay in the memtable: the parent SIGKILLs us before any flush.
		for i := range lossThreads {
			if err := s.Put("thread", fmt.Sprintf("t%02d", i), note{Record{V: 1}, "a thread"}); err != nil {
				return fail(err)
			}
		}
		fmt.Println("written")
		time.Sleep(time.Minute)
		return 3
	case "usage":
		// Two turns' usage of one thread; the parent SIGKILLs us once they are recorded.
		at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		for _, r := range killedUsage {
			if _, err := s.RecordUsage("t1", "client:bot", r, at); err != nil {
				return fail(err)
			}
		}
		fmt.Println("recorded")
		time.Sleep(time.Minute)
		return 3
	case "putsync":
		if err := s.Put("note", "plain", note{Record{V: 1}, "committed"}); err != nil {
			return fail(err)
		}
		if err := s.PutSync("note", "synced", note{Record{V: 1}, "synced"}); err != nil {
			return fail(err)
		}
		fmt.Println("synced")
		time.Sleep(time.Minute) // the parent SIGKILLs us here
		return 3
	}
	return fail(fmt.Errorf("unknown child mode %q", mode))
}

type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

// startChild runs mode in a child process on home and waits for it to print want.
func startChild(t *testing.T, mode, home, want string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// The race runtime otherwise sleeps a second at exit.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childHomeEnv+"="+home, "GORACE="+gorace)
	cmd.Stderr = &testWriter{t: t}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	select {
	case line, ok := <-c.lines:
		if !ok || line != want {
			_ = cmd.Process.Kill()
			t.Fatalf("child %s printed %q (open %v), want %q", mode, line, ok, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("child %s did not print %q", mode, want)
	}
	return c
}

// wait waits for the child to exit and returns its wait status.
func (c *child) wait(t *testing.T) syscall.WaitStatus {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
		t.Fatal("child did not exit")
	}
	return c.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("child stderr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "home"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// looseModes lists every directory or file under root that gives group/other any access.
func looseModes(t *testing.T, root string) []string {
	t.Helper()
	var loose []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path != root {
			return nil
		}
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			loose = append(loose, fmt.Sprintf("%s %v", path, fi.Mode()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return loose
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func asModelError(t *testing.T, err error, code model.Code) *model.Error {
	t.Helper()
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T) is not a *model.Error", err, err)
	}
	if me.Code != code {
		t.Fatalf("code %s, want %s: %v", me.Code, code, err)
	}
	return me
}
