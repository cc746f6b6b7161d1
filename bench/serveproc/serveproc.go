// Package serveproc runs `codexhost serve` for the load benches and opens the FIFO gates
// their harness turns block on.
package serveproc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Command is `codexhost ARGS` on home only: a codexhost connection of whoever runs the bench
// must not leak in.
func Command(bin, home string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CODEXHOST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CODEXHOST_HOME="+home)
	cmd.Stderr = os.Stderr
	return cmd
}

// Serve is a running `codexhost serve`.
type Serve struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has exited
}

// Start starts cmd (a `codexhost serve`) and waits until it announces that it listens. The
// Serve is nil only when the process did not start.
func Start(cmd *exec.Cmd) (*Serve, error) {
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Serve{cmd: cmd, exited: make(chan struct{})}
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		announced := false
		for sc.Scan() {
			if !announced && strings.Contains(sc.Text(), "listening on") {
				announced = true
				close(listening)
			}
		}
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case <-listening:
		return s, nil
	case <-s.exited:
		return s, fmt.Errorf("serve exited: %v\n%s", cmd.ProcessState, stderr.String())
	case <-time.After(60 * time.Second):
		return s, errors.New("serve did not listen within 60 s")
	}
}

// Pid is the serve process's id.
func (s *Serve) Pid() int { return s.cmd.Process.Pid }

// Stop ends serve with SIGTERM (killing it after 60 s) and returns how long it took to exit.
func (s *Serve) Stop() time.Duration {
	t0 := time.Now()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	return time.Since(t0)
}

// OpenGate lets a gate thread's turn end: it writes to the FIFO dir/id the turn is blocked
// on, and returns when it did.
func OpenGate(dir, id string) (time.Time, error) {
	path := filepath.Join(dir, id)
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Non-blocking: ENXIO (or no file yet) until the turn has opened its end.
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			_, err = f.Write([]byte("\n"))
			at := time.Now()
			f.Close()
			return at, err
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("stop %s: %w", id, err)
		}
		time.Sleep(time.Millisecond)
	}
}
