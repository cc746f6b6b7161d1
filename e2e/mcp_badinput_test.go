package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// rawStdio is `codexhost mcp` driven line by line, for what no well-behaved client sends.
type rawStdio struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
}

func startRawStdio(t *testing.T, env []string) *rawStdio {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Dir = env, t.TempDir()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawStdio{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				r.lines <- m
			}
		}
		close(r.lines)
	}()
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	return r
}

func (r *rawStdio) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// next returns the next message from the server.
func (r *rawStdio) next() map[string]any {
	r.t.Helper()
	select {
	case m, ok := <-r.lines:
		if !ok {
			r.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(mcpCallTimeout):
		r.t.Fatal("no answer from codexhost mcp")
	}
	return nil
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// Malformed JSON-RPC, a batch, a 10 MB argument, an unknown tool and wrong argument types
// each get a clear error, and the server keeps serving the same session.
func TestMCPBadInputOverStdio(t *testing.T) {
	t.Parallel()
	h, _, token := mcpHost(t, "")
	r := startRawStdio(t, h.mcpEnv(token))
	r.send(initializeLine)
	if m := r.next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	r.send(`{"jsonrpc":"2.0","id":2,"method":`)
	if m := r.next(); errCode(m) != -32700 || m["id"] != nil {
		t.Fatalf("malformed JSON: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":5}`)
	if m := r.next(); errCode(m) != -32600 || m["id"] != float64(3) {
		t.Fatalf("not a request: %v", m)
	}
	r.send(`[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`)
	if m := r.next(); errCode(m) != -32600 {
		t.Fatalf("batch: %v", m)
	}
	huge := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"handoff.create","arguments":{"title":"` + strings.Repeat("x", 10<<20) + `"}}}`
	r.send(huge)
	if m := r.next(); errCode(m) != -32600 || !strings.Contains(mustJSON(m), "refused before decoding") {
		t.Fatalf("10 MB message: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no.such.tool","arguments":{}}}`)
	if m := r.next(); m["id"] != float64(6) || (m["error"] == nil && !strings.Contains(mustJSON(m), "isError")) {
		t.Fatalf("unknown tool: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"codex.status","arguments":{"limit":"ten"}}}`)
	m := r.next()
	if res, _ := m["result"].(map[string]any); res["isError"] != true || !strings.Contains(mustJSON(res), `argument \"limit\" is invalid: want integer, got string`) {
		t.Fatalf("wrong argument type: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"codex.status","arguments":{"limit":2}}}`)
	if m := r.next(); m["id"] != float64(8) || m["result"].(map[string]any)["isError"] == true {
		t.Fatalf("the session stopped serving: %v", m)
	}
}

// A client that disconnects in the middle of a call leaves the runtime serving: a new session
// works, and the handoff of the cut call was either made whole or not at all.
func TestMCPClientDisconnectsMidCall(t *testing.T) {
	t.Parallel()
	h, root, token := mcpHost(t, "")
	r := startRawStdio(t, h.mcpEnv(token))
	r.send(initializeLine)
	r.next()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	args, _ := json.Marshal(demoHandoffArgs(mkProject(t, root, "cut")))
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"handoff.create","arguments":` + string(args) + `}}`)
	_ = r.in.Close()
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()

	cs := mcpStdio(t, h.mcpEnv(token))
	st := structured[api.TaskStatusResult](t, callTool(t, cs, "codex.status", nil))
	if len(st.Tasks) != 0 {
		t.Fatalf("status %+v", st)
	}
	list := h.asClient(token, "handoff", "list", "--json")
	if list.code != 0 {
		t.Fatalf("the runtime stopped serving: %s", list)
	}
}

// Over HTTP every caller acts as its own client: a bad or missing token is 401, a
// non-localhost Host header 403, an oversized body 413 (before it is read), and the
// handoff a caller creates and starts has that caller's client as its origin.
func TestMCPHTTPCallersActAsTheirClient(t *testing.T) {
	t.Parallel()
	h, root, token := mcpHost(t, "")
	url := mcpHTTP(t, h)
	post := func(tok, host string, body []byte) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	init := []byte(initializeLine)
	for name, c := range map[string]struct {
		tok, host string
		body      []byte
		status    int
	}{
		"no token":  {"", "", init, http.StatusUnauthorized},
		"bad token": {"not-a-token", "", init, http.StatusUnauthorized},
		"host":      {token, "evil.example:80", init, http.StatusForbidden},
		"oversized": {token, "", bytes.Repeat([]byte(" "), 2<<20), http.StatusRequestEntityTooLarge},
		"valid":     {token, "", init, http.StatusOK},
	} {
		if resp := post(c.tok, c.host, c.body); resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, c.status)
		}
	}
	if _, err := httpSession(t, url, "not-a-token"); err == nil {
		t.Fatal("the SDK client connected with a bad token")
	}

	cs, err := httpSession(t, url, token)
	if err != nil {
		t.Fatal(err)
	}
	h.fake.Enqueue(fakemodel.WriteFile("docs/HANDOFF_DEMO.md", "over http\n"))
	created := structured[api.HandoffCreateResult](t, callTool(t, cs, "handoff_create", demoHandoffArgs(mkProject(t, root, "http"))))
	started := structured[struct{ Task map[string]any }](t, callTool(t, cs, "codex_task_start", map[string]any{"handoffId": created.HandoffID}))
	info := waitTaskStatus(t, cs, started.Task["taskId"].(string), model.TaskCompleted, model.TaskFailed)
	if info["startedBy"] != "client:bot" || info["status"] != model.TaskCompleted {
		t.Fatalf("task %+v", info)
	}
	// The operator-only confirmation stays closed to an HTTP caller: the policy is the runtime's.
	other := h.addClient("other")
	cs2, err := httpSession(t, url, other)
	if err != nil {
		t.Fatal(err)
	}
	st := structured[api.TaskStatusResult](t, callTool(t, cs2, "codex.status", map[string]any{"taskId": info["taskId"]}))
	if len(st.Tasks) != 1 || st.Tasks[0].StartedBy != "client:bot" {
		t.Fatalf("status as another client %+v", st)
	}
	toolError(t, callTool(t, cs2, "codex_session_read", map[string]any{"thread": info["taskId"]}), model.CodePermissionDenied)
}
