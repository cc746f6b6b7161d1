package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/model"
)

const mcpCallTimeout = 60 * time.Second

// mcpHost is a running serve whose [handoff] policy allows one temporary root, with a client
// "bot" whose token the MCP clients present.
func mcpHost(t *testing.T, extra string) (h *host, root, token string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h = startHost(t, hostConfig{config: "[handoff]\nallowed_project_roots = [" + tomlString(root) + "]\nauto_start_max_risk = \"medium\"\n" + extra})
	return h, root, h.addClient("bot")
}

// mcpEnv is the environment of an MCP server process: the home, and a client token when given.
func (h *host) mcpEnv(token string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home, "CODEXHOST_CODEX_BIN=" + h.codexBin}
	if token != "" {
		env = append(env, "CODEXHOST_CLIENT_TOKEN="+token)
	}
	return env
}

// mcpStdio connects the SDK's client to `codexhost mcp` over stdio (the built binary).
func mcpStdio(t testing.TB, env []string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	cmd.Stderr = &syncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to codexhost mcp: %v\nstderr: %s", err, cmd.Stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// mcpHTTP starts `codexhost mcp --listen 127.0.0.1:0` on the host's home and returns its URL.
func mcpHTTP(t *testing.T, h *host) string { return startMCPHTTP(t, h.mcpEnv("")) }

// startMCPHTTP starts `codexhost mcp --listen 127.0.0.1:0` with env and returns its URL.
func startMCPHTTP(t testing.TB, env []string) string {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--listen", "127.0.0.1:0")
	cmd.Env = env
	cmd.Dir = t.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "listening on "); ok {
				lines <- url
			}
		}
	}()
	select {
	case url := <-lines:
		return url
	case <-time.After(serveTimeout):
		t.Fatal("codexhost mcp --listen did not announce its address")
	}
	return ""
}

// bearer adds a token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// httpSession connects the SDK's client over Streamable HTTP with token.
func httpSession(t testing.TB, url, token string) (*sdk.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}, MaxRetries: -1}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e-http", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// callTool calls a tool; a protocol error fails the test (tool errors are results).
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpCallTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		checkOutputSchema(t, cs, name, res)
	}
	return res
}

// outputSchemas are the resolved outputSchemas of each session's tools/list.
var outputSchemas sync.Map // *sdk.ClientSession → map[string]*jsonschema.Resolved

// checkOutputSchema fails the test when a successful result does not match the outputSchema
// its tool declares in tools/list.
func checkOutputSchema(t *testing.T, cs *sdk.ClientSession, name string, res *sdk.CallToolResult) {
	t.Helper()
	cached, ok := outputSchemas.Load(cs)
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), mcpCallTimeout)
		defer cancel()
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		m := map[string]*jsonschema.Resolved{}
		for _, tl := range list.Tools {
			b, _ := json.Marshal(tl.OutputSchema)
			var s jsonschema.Schema
			if err := json.Unmarshal(b, &s); err != nil || tl.OutputSchema == nil {
				t.Fatalf("%s has no outputSchema (%s)", tl.Name, b)
			}
			if m[tl.Name], err = s.Resolve(nil); err != nil {
				t.Fatalf("%s: outputSchema: %v", tl.Name, err)
			}
		}
		cached, _ = outputSchemas.LoadOrStore(cs, m)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	_ = json.Unmarshal(b, &v)
	if err := cached.(map[string]*jsonschema.Resolved)[name].Validate(v); err != nil {
		t.Fatalf("%s: the result %.600s does not match the tool's outputSchema: %v", name, b, err)
	}
}

// structured decodes the structured content of a successful call.
func structured[T any](t *testing.T, res *sdk.CallToolResult) T {
	t.Helper()
	var out T
	if res.IsError {
		t.Fatalf("tool error: %s", textOf(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	if textOf(res) == "" {
		t.Fatal("no text rendering")
	}
	return out
}

// toolError checks a failed call: isError, no structuredContent (clients would check it
// against the outputSchema), the code and hint in the text and the error document with code,
// message and hint as the last text item.
func toolError(t *testing.T, res *sdk.CallToolResult, code model.Code) model.Error {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want %s, got success: %s", code, textOf(res))
	}
	if res.StructuredContent != nil {
		t.Fatalf("a tool error carries structuredContent %v", res.StructuredContent)
	}
	var doc struct {
		Error model.Error `json:"error"`
	}
	var b []byte
	if last, ok := res.Content[len(res.Content)-1].(*sdk.TextContent); ok {
		b = []byte(last.Text)
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Error.Code != code || doc.Error.Message == "" || doc.Error.Hint == "" {
		t.Fatalf("want %s with message and hint, got %s (%v)", code, b, err)
	}
	if text := textOf(res); !strings.Contains(text, string(code)) || !strings.Contains(text, doc.Error.Hint) {
		t.Fatalf("text %q lacks the code or hint", text)
	}
	return doc.Error
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func demoHandoffArgs(dir string) map[string]any {
	return map[string]any{
		"title": "Add handoff demo document", "objective": "Create docs/HANDOFF_DEMO.md describing the Handoff -> Codex Runner loop.",
		"projectPath": dir, "constraints": []string{"Operate only inside the approved project root."},
		"allowedOperations": []string{"read", "write"}, "riskLevel": "low", "expectedArtifacts": []string{"docs/HANDOFF_DEMO.md"},
		"acceptanceCriteria": []string{"The file exists."},
	}
}

func mkProject(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitTaskStatus polls codex.status until the task reaches one of statuses.
func waitTaskStatus(t *testing.T, cs *sdk.ClientSession, id string, statuses ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(mcpCallTimeout)
	for {
		st := structured[struct{ Tasks []map[string]any }](t, callTool(t, cs, "codex.status", map[string]any{"taskId": id}))
		if len(st.Tasks) == 1 {
			for _, s := range statuses {
				if st.Tasks[0]["status"] == s {
					return st.Tasks[0]
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s never reached %v: %v", id, statuses, st.Tasks)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return string(b)
}
