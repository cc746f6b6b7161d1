package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/codexhost/codexhost/bench/procstat"
	"github.com/codexhost/codexhost/bench/serveproc"
	"github.com/codexhost/codexhost/runtime/api"
)

type bench struct {
	home, fifos string
	token       string
	serve       *serveproc.Serve
	c           *api.Client
}

func (b *bench) cmd(args ...string) *exec.Cmd { return serveproc.Command(*binFlag, b.home, args...) }

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
	var err error
	b.serve, err = serveproc.Start(b.cmd("serve"))
	if err != nil {
		return err
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
	b.serve.Stop()
	b.serve = nil
}

// stopThread lets a gate thread's turn end.
func (b *bench) stopThread(id string) (time.Time, error) { return serveproc.OpenGate(b.fifos, id) }

// cpuOver is the serve process's CPU use over d (utime+stime of /proc/PID/stat), in percent
// of one core.
func (b *bench) cpuOver(d time.Duration) (float64, error) {
	pid := b.serve.Pid()
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

func (b *bench) rss() string { return procstat.RSS(b.serve.Pid()) }

func dist(ds []time.Duration) string { return procstat.Dist(ds) }
