package appserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
)

var (
	listHomeOnce sync.Once
	listHome     codexEnv
)

// homeWith200Threads fills a Codex home with 200 stored threads (one turn each), once per
// test process.
func homeWith200Threads(b *testing.B) codexEnv {
	listHomeOnce.Do(func() {
		env := newCodexEnv(b)
		c := env.start(b)
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			wg.Add(1)
			sem <- struct{}{}
			go func(i int) {
				defer wg.Done()
				defer func() { <-sem }()
				th := newThread(b, c)
				runTurn(b, c, th.ID, fmt.Sprintf("stored thread %d", i))
			}(i)
		}
		wg.Wait()
		_ = c.Close()
		listHome = env
	})
	if listHome.home == "" {
		b.Fatal("could not build the 200-thread home")
	}
	return listHome
}

func reportMedian(b *testing.B, samples []time.Duration) {
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	if len(samples) > 0 {
		b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "median-ms")
	}
}

// BenchmarkThreadList200 compares thread/list through Client with the same request sent by a
// minimal raw client (bytes in, one line out) on the same 200-thread home.
func BenchmarkThreadList200(b *testing.B) {
	env := homeWith200Threads(b)
	params := ThreadListParams{Limit: 100} // the App Server caps a page at 100

	b.Run("client", func(b *testing.B) {
		c := env.start(b)
		ctx := context.Background()
		samples := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			res, err := c.ThreadList(ctx, params)
			samples = append(samples, time.Since(start))
			if err != nil || len(res.Data) != 100 {
				b.Fatalf("list: %d threads, %v", len(res.Data), err)
			}
		}
		reportMedian(b, samples)
	})

	b.Run("raw", func(b *testing.B) {
		cmd := exec.Command(env.bin, "app-server")
		cmd.Env = codextest.Env(env.home)
		cmd.Dir = env.home
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { stdin.Close(); _ = cmd.Wait() }()
		r := bufio.NewReaderSize(stdout, 1<<20)
		roundTrip := func(id int, method string, p any) []byte {
			line, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": p})
			_, _ = stdin.Write(append(line, '\n'))
			want := []byte(fmt.Sprintf(`"id":%d`, id))
			for {
				out, err := r.ReadBytes('\n')
				if err != nil {
					b.Fatal(err)
				}
				if json.Valid(out) && bytes.Contains(out, want) && !bytes.Contains(out, []byte(`"method"`)) {
					return out
				}
			}
		}
		roundTrip(0, "initialize", map[string]any{"clientInfo": map[string]string{"name": "raw", "version": "0"}, "capabilities": map[string]any{"experimentalApi": true}})
		samples := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			out := roundTrip(i+1, "thread/list", params)
			samples = append(samples, time.Since(start))
			if len(out) < 1000 {
				b.Fatalf("short list reply: %s", out)
			}
		}
		reportMedian(b, samples)
	})
}
