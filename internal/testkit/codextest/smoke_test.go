//go:build unix

package codextest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// TestAppServerTurnAgainstFake runs one real turn: codex app-server, started
// with the helpers of this package, answered by a fakemodel server.
func TestAppServerTurnAgainstFake(t *testing.T) {
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	home := codextest.NewHome(t, fake.URL())
	work := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	p := startAppServer(t, bin, home)
	p.call(ctx, "initialize", map[string]any{
		"clientInfo":   map[string]any{"name": "codextest_smoke", "title": "codextest", "version": "0.0.1"},
		"capabilities": map[string]any{"experimentalApi": true},
	})
	p.send(map[string]any{"method": "initialized"})

	var started struct {
		Thread struct {
			ID            string `json:"id"`
			ModelProvider string `json:"modelProvider"`
		} `json:"thread"`
	}
	p.decode(p.call(ctx, "thread/start", map[string]any{"cwd": work}), &started)
	if started.Thread.ID == "" || started.Thread.ModelProvider != "fake" {
		t.Fatalf("thread/start: %+v", started)
	}
	p.call(ctx, "turn/start", map[string]any{
		"threadId": started.Thread.ID,
		"input":    []any{map[string]any{"type": "text", "text": "hello"}},
	})

	var completed struct {
		ThreadID string `json:"threadId"`
		Turn     struct {
			Status string          `json:"status"`
			Error  json.RawMessage `json:"error"`
			Items  []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"items"`
		} `json:"turn"`
	}
	p.decode(p.await(ctx, "turn/completed"), &completed)
	turn := completed.Turn
	if completed.ThreadID != started.Thread.ID || turn.Status != "completed" || len(turn.Items) != 1 ||
		turn.Items[0].Type != "agentMessage" || turn.Items[0].Text != "fake reply #1 to: hello" {
		t.Fatalf("turn/completed: %+v (error %s)", completed, turn.Error)
	}

	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("fake saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.UserText != "hello" || r.Path != "/v1/responses" || r.JSON["model"] != "mock-model" ||
		r.Header.Get("Originator") != "codextest_smoke" || r.Header.Get("Authorization") != "" {
		t.Fatalf("fake recorded %+v", r)
	}
}

// appServer is just enough JSON-RPC over stdio to drive one turn.
type appServer struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  chan []byte // stdout, one message per line; closed at EOF
	nextID int

	mu         sync.Mutex
	transcript []string // for the failure log
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func startAppServer(t *testing.T, bin, home string) *appServer {
	cmd := exec.Command(bin, "app-server")
	cmd.Env = codextest.Env(home)
	cmd.Dir = home
	// Its own process group, so cleanup also reaches anything codex spawned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer // written by exec's copier; read only after Wait
	cmd.Stderr = &stderr
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &appServer{t: t, stdin: stdin, lines: make(chan []byte, 256)}

	stop := make(chan struct{})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line := bytes.Clone(sc.Bytes())
			select {
			case p.lines <- line:
			case <-stop:
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
	}()

	t.Cleanup(func() {
		close(stop)
		// Closing stdin asks codex to exit (it does within ~0.2 s); the
		// process group is killed in any case.
		stdin.Close()
		select {
		case <-readDone:
		case <-time.After(3 * time.Second):
			t.Errorf("codex app-server did not exit after stdin was closed")
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Errorf("killing the codex process group: %v", err)
		}
		<-readDone
		err := cmd.Wait()
		if t.Failed() {
			p.mu.Lock()
			t.Logf("codex app-server exited (%v); transcript:\n%s\nstderr:\n%s", err, strings.Join(p.transcript, "\n"), stderr.String())
			p.mu.Unlock()
		}
	})
	return p
}

func (p *appServer) log(dir string, line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.transcript = append(p.transcript, dir+" "+string(line))
}

func (p *appServer) send(msg map[string]any) {
	p.t.Helper()
	line, err := json.Marshal(msg)
	if err != nil {
		p.t.Fatal(err)
	}
	p.log("->", line)
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.t.Fatalf("writing to codex: %v", err)
	}
}

// read returns the next message from codex.
func (p *appServer) read(ctx context.Context) message {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("codex app-server closed stdout")
		}
		p.log("<-", line)
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			p.t.Fatalf("bad line from codex: %v: %s", err, line)
		}
		if m.Method != "" && m.ID != nil {
			p.t.Fatalf("unexpected server request %s", line)
		}
		return m
	case <-ctx.Done():
		p.t.Fatalf("waiting for codex: %v", ctx.Err())
		return message{}
	}
}

// call sends a request and returns its result, skipping notifications.
func (p *appServer) call(ctx context.Context, method string, params any) json.RawMessage {
	p.t.Helper()
	p.nextID++
	id := p.nextID
	p.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		m := p.read(ctx)
		if m.Method != "" || string(m.ID) != fmt.Sprint(id) {
			continue
		}
		if m.Error != nil {
			p.t.Fatalf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
		}
		return m.Result
	}
}

// await returns the params of the next notification named method.
func (p *appServer) await(ctx context.Context, method string) json.RawMessage {
	p.t.Helper()
	for {
		if m := p.read(ctx); m.Method == method {
			return m.Params
		}
	}
}

func (p *appServer) decode(raw json.RawMessage, v any) {
	p.t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		p.t.Fatalf("decoding %s: %v", raw, err)
	}
}
