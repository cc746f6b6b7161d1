package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/bench/procstat"
	"github.com/codexhost/codexhost/runtime/api"
)

type bench struct {
	home, fifos string
	token       string
	serve       *exec.Cmd
	exited      chan struct{}
	c           *api.Client
}

func (b *bench) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(*binFlag, args...)
	// Only this home: a codexhost connection of whoever runs the bench must not leak in.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CODEXHOST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CODEXHOST_HOME="+b.home)
	cmd.Stderr = os.Stderr
	return cmd
}

func (b *bench) addClient() error {
	out, err := b.cmd("client", "add", clientName, "--json").Output()
	if err != nil {
		return fmt.Errorf("client add: %w", err)
	}
	var added struct{ Token string }
	if err := json.Unmarshal(out, &added); err != nil {
		return err
	}
	b.token = added.Token
	return nil
}

// start runs serve, waits until it listens and connects as the client.
func (b *bench) start(ctx context.Context) error {
	cmd := b.cmd("serve")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	b.serve, b.exited = cmd, make(chan struct{})
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
		close(b.exited)
	}()
	select {
	case <-listening:
	case <-b.exited:
		return fmt.Errorf("serve exited: %v\n%s", cmd.ProcessState, stderr.String())
	case <-time.After(60 * time.Second):
		return errors.New("serve did not listen within 60 s")
	}
	c, err := api.Dial(ctx, api.UnixEndpoint(filepath.Join(b.home, "runtime.sock")), b.token)
	if err != nil {
		return err
	}
	b.c = c
	return nil
}

// stop ends serve with SIGTERM (its turns end with it).
func (b *bench) stop() {
	if b.serve == nil {
		return
	}
	if b.c != nil {
		b.c.Close()
	}
	_ = b.serve.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.exited:
	case <-time.After(60 * time.Second):
		_ = b.serve.Process.Kill()
		<-b.exited
	}
	b.serve = nil
}

// stopThread lets a gate thread's turn end: it writes to the FIFO the turn is blocked on.
func (b *bench) stopThread(id string) (time.Time, error) {
	path := filepath.Join(b.fifos, id)
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

// cpuOver is the serve process's CPU use over d (utime+stime of /proc/PID/stat), in percent
// of one core.
func (b *bench) cpuOver(d time.Duration) (float64, error) {
	pid := b.serve.Process.Pid
	first, err := procstat.CPUTicks(pid)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	time.Sleep(d)
	last, err := procstat.CPUTicks(pid)
	if err != nil {
		return 0, err
	}
	return float64(last-first) / procstat.ClockTicks() / time.Since(t0).Seconds() * 100, nil
}

func numCPU() int { return runtime.NumCPU() }

func (b *bench) rss() string { return procstat.RSS(b.serve.Process.Pid) }

func dist(ds []time.Duration) string { return procstat.Dist(ds) }
