package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
)

// Bounds of TestHostileConnectionsKeepMemoryBounded, in KiB of resident memory above the
// runtime's own before the load. Without limits the same load took it from 36 MB to over
// 700 MB, and it stayed there.
const (
	hostileLoadRSSBoundKB = 96 << 10
	afterLoadRSSBoundKB   = 40 << 10
)

// rssKB reads a process's resident set size from /proc.
func rssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

// rawAuth dials the socket and authenticates with token, returning the connection and a
// reader of its lines.
func rawAuth(t *testing.T, sock, token string) (net.Conn, *bufio.Reader) {
	t.Helper()
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(nc, 1<<20)
	fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":%q}}`+"\n", token)
	line, err := br.ReadBytes('\n')
	if err != nil || bytes.Contains(line, []byte(`"error"`)) {
		t.Fatalf("auth: %q %v", line, err)
	}
	return nc, br
}

// floodUnauthenticated keeps sending one endless line on fresh connections, never
// authenticating, until ctx ends.
func floodUnauthenticated(ctx context.Context, sock string) {
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for ctx.Err() == nil {
		nc, err := net.Dial("unix", sock)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
		_, _ = nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"`))
		for i := 0; i < 8 && ctx.Err() == nil; i++ {
			if _, err := nc.Write(chunk); err != nil {
				break
			}
		}
		stop()
		_ = nc.Close()
	}
}

// pipelineWaits sends n thread.wait requests at once on one authenticated connection and
// counts the answers refused for the in-flight limit, until n answers came or ctx ended.
func pipelineWaits(ctx context.Context, t *testing.T, sock, token, thread string, n int) (refused int) {
	nc, br := rawAuth(t, sock, token)
	defer nc.Close()
	context.AfterFunc(ctx, func() { _ = nc.Close() })
	go func() {
		w := bufio.NewWriterSize(nc, 1<<20)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"thread.wait","params":{"thread":%q,"timeoutMs":120000}}`+"\n", i, thread)
		}
		_ = w.Flush()
	}()
	// The admitted waits block (the thread sleeps): every other one is answered, refused.
	for answered := 0; answered < n-api.DefaultMaxInflight; answered++ {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return refused
		}
		if bytes.Contains(line, []byte("RESOURCE_EXHAUSTED")) {
			refused++
		}
	}
	return refused
}

// Hostile connections (40 unauthenticated ones streaming 8 MiB lines, 20,000 pipelined
// thread.wait on one connection) keep the runtime's memory under a stated bound, another
// client is answered throughout, and the memory comes back after the load.
// Serial: its flood takes both cores for seconds; alone (serial tests run before the
// parallel ones) it does not eat into the timeouts of tests beside it.
func TestHostileConnectionsKeepMemoryBounded(t *testing.T) {
	h := startHost(t, hostConfig{harnesses: map[string][]string{"sleeper": {"sh", "-c", "sleep 300"}}})
	token := h.addClient("bot")
	child := h.delegate(token, "--harness", "sleeper", "--task", "hold the turn")
	pid := h.serve.Process.Pid
	sock := strings.TrimPrefix(h.unix, "unix://")
	base := rssKB(t, pid)

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var peak atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // sample the resident size while the load runs
		defer wg.Done()
		for ctx.Err() == nil {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
						n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
						if int64(n) > peak.Load() {
							peak.Store(int64(n))
						}
					}
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for range 40 {
		wg.Add(1)
		go func() { defer wg.Done(); floodUnauthenticated(ctx, sock) }()
	}
	// The pipeline is read to its end, not cut when the other loads stop: on a busy machine
	// writing 20,000 requests takes longer than the load below.
	refused := make(chan int, 1)
	pipeCtx, stopPipe := context.WithCancel(context.Background())
	defer stopPipe()
	go func() { refused <- pipelineWaits(pipeCtx, t, sock, token, child.Thread.ID, 20000) }()

	// Another client is answered while the load runs.
	nc, br := rawAuth(t, sock, token)
	defer nc.Close()
	for i := range 10 {
		_ = nc.SetDeadline(time.Now().Add(cliTimeout))
		fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":%d,"method":"thread.read","params":{"thread":%q}}`+"\n", i+1, child.Thread.ID)
		line, err := br.ReadBytes('\n')
		if err != nil || !bytes.Contains(line, []byte(`"result"`)) {
			t.Fatalf("a client under the load: %q %v", line, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	stop()
	wg.Wait()
	var n int
	select {
	case n = <-refused:
	case <-time.After(2 * time.Minute):
		t.Fatal("the pipelined waits were not all answered")
	}
	t.Logf("RSS before the load %d KiB, peak under it %d KiB; %d of 20000 pipelined waits refused", base, peak.Load(), n)
	if n < 20000-1000 {
		t.Errorf("only %d of 20000 pipelined waits were refused for the in-flight limit", n)
	}
	if grow := int(peak.Load()) - base; grow > hostileLoadRSSBoundKB {
		t.Errorf("resident memory grew by %d KiB under the load, bound %d KiB", grow, hostileLoadRSSBoundKB)
	}

	// After the load the memory comes back (Go returns freed pages in the background).
	deadline := time.Now().Add(2 * time.Minute)
	after := rssKB(t, pid)
	for after-base > afterLoadRSSBoundKB && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		after = rssKB(t, pid)
	}
	t.Logf("RSS after the load %d KiB", after)
	if after-base > afterLoadRSSBoundKB {
		t.Errorf("resident memory stayed %d KiB above its level before the load", after-base)
	}
	var res json.RawMessage
	h.asClient(token, "thread", "read", child.Thread.ID).decode(t, &res)
}
