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

// Start starts cmd (a `codexhost serve`) and waits until it announces that it listens. The
// channel it returns is closed once the process has exited.
func Start(cmd *exec.Cmd) (exited <-chan struct{}, err error) {
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
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
		close(done)
	}()
	select {
	case <-listening:
		return done, nil
	case <-done:
		return done, fmt.Errorf("serve exited: %v\n%s", cmd.ProcessState, stderr.String())
	case <-time.After(60 * time.Second):
		return done, errors.New("serve did not listen within 60 s")
	}
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
