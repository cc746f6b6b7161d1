package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mute is a terminal that never answers: a pty whose other side only records what the
// program wrote, as Emacs shells, serial consoles and CI logs behave.
type mute struct {
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	done   chan struct{}
}

// openMute opens a pty of w×h cells. The program gets the returned slave as its controlling
// terminal; the caller closes it once the program has started.
func openMute(t *testing.T, w, h int) (*mute, *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(w), Row: uint16(h)}); err != nil {
		t.Fatal(err)
	}
	m := &mute{master: master, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		buf := make([]byte, 4096)
		for {
			k, err := master.Read(buf)
			m.mu.Lock()
			m.out.Write(buf[:k])
			m.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { master.Close() })
	return m, slave
}

func (m *mute) text() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.out.String()
}

// waitFor waits until the program wrote want; the bound is a hang guard, not a speed target.
func (m *mute) waitFor(t *testing.T, want string, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !strings.Contains(m.text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %v; the terminal got:\n%q", want, bound, m.text())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startOnMute runs bin with args on a mute terminal as its controlling terminal.
func startOnMute(t *testing.T, w, h int, env []string, args ...string) (*mute, *exec.Cmd) {
	t.Helper()
	m, slave := openMute(t, w, h)
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=xterm-256color", "HOME=" + t.TempDir()}, env...)
	cmd.Dir = t.TempDir()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return m, cmd
}

const (
	bgQuery  = "\x1b]11;?"
	dsrQuery = "\x1b[6n"
)

// Commands run at a terminal that never answers do not ask it anything and do not wait for
// it: before, each sent ESC]11;? and ESC[6n and waited 5 s for the answer.
func TestMuteTerminalCommandsDoNotAsk(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cases := []struct {
		name string
		env  []string
		args []string
	}{
		{"version", nil, []string{"version"}},
		{"json", nil, []string{"--json", "version"}},
		{"NO_COLOR", []string{"NO_COLOR=1"}, []string{"version"}},
		{"no-color", nil, []string{"--no-color", "version"}},
		{"help", nil, []string{"--help"}},
		{"hosts", nil, []string{"hosts"}},
		{"task status", []string{"COLUMNS=80"}, []string{"task", "status"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, cmd := startOnMute(t, 80, 24, append([]string{"CODEXHOST_HOME=" + home}, c.env...), c.args...)
			start := time.Now()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(cliTimeout):
				t.Fatalf("codexhost %s did not finish on a mute terminal; it wrote:\n%q", strings.Join(c.args, " "), m.text())
			}
			t.Logf("codexhost %s on a mute terminal: %v", strings.Join(c.args, " "), time.Since(start).Round(time.Millisecond))
			<-m.done
			if out := m.text(); strings.Contains(out, bgQuery) || strings.Contains(out, dsrQuery) {
				t.Fatalf("codexhost %s asked the terminal:\n%q", strings.Join(c.args, " "), out)
			}
		})
	}
}

// The terminal app asks once, before its first frame, and draws that frame on a terminal
// that never answers; NO_COLOR, a theme or COLORFGBG settle the background without asking.
func TestMuteTerminalAppAsksOnceAtMost(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  []string
		args []string
		asks int
	}{
		{"auto", nil, nil, 1},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, 0},
		{"theme", nil, []string{"--theme", "light"}, 0},
		{"COLORFGBG", []string{"COLORFGBG=15;0"}, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := []string{"CODEXHOST_HOME=" + shortHome(t), "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
			start := time.Now()
			m, cmd := startOnMute(t, 80, 24, append(env, c.env...), c.args...)
			m.waitFor(t, "\x1b[?1049h", cliTimeout) // the alternate screen: the program owns the terminal
			m.waitFor(t, "codexhost", cliTimeout)
			t.Logf("terminal app (%s) drew its first frame on a mute terminal after %v", c.name, time.Since(start).Round(time.Millisecond))
			out := m.text()
			if n := strings.Count(out, bgQuery); n != c.asks {
				t.Fatalf("asked the background %d times, want %d:\n%q", n, c.asks, out)
			}
			if c.asks > 0 && strings.Index(out, bgQuery) > strings.Index(out, "\x1b[?1049h") {
				t.Fatalf("asked after the program took the terminal:\n%q", out)
			}
			cmd.Process.Signal(syscall.SIGTERM)
		})
	}
}

// shortHome is a home whose socket path fits a Unix socket.
func shortHome(t *testing.T) string {
	t.Helper()
	home, err := os.MkdirTemp("", "chq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
}
