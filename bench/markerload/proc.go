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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

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
	first, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	time.Sleep(d)
	last, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	return float64(last-first) / clockTicks() / time.Since(t0).Seconds() * 100, nil
}

func cpuTicks(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(raw), ')')
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	return u + s, errors.Join(err1, err2)
}

// clockTicks is the unit of /proc/PID/stat times (USER_HZ).
var clockTicks = sync.OnceValue(func() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && n > 0 {
			return float64(n)
		}
	}
	return 100
})

func (b *bench) rss() string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.serve.Process.Pid))
	if err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func numCPU() int { return runtime.NumCPU() }

func dist(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	return fmt.Sprintf("p50 %v, p99 %v, min %v, max %v (n=%d)", r(q(0.50)), r(q(0.99)), r(s[0]), r(s[len(s)-1]), len(s))
}
