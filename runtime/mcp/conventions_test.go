package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A request without a valid bearer token is a 401 that says how to authenticate
// (WWW-Authenticate: Bearer, RFC 6750), not a bare status.
func TestMCPHTTPUnauthorizedCarriesABearerChallenge(t *testing.T) {
	t.Parallel()
	f := startMCP(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, auth := range []string{"", "Bearer wrong-token"} {
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: status %d, WWW-Authenticate %q", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

// localhost:PORT is loopback; any other host is refused.
func TestListenLoopbackAcceptsLocalhost(t *testing.T) {
	t.Parallel()
	ln, err := ListenLoopback("localhost:0")
	if err != nil {
		t.Fatalf("localhost:0: %v", err)
	}
	defer ln.Close()
	if !strings.HasPrefix(ln.Addr().String(), "127.0.0.1:") {
		t.Fatalf("listening on %s", ln.Addr())
	}
	for _, addr := range []string{"0.0.0.0:0", "example.com:0", ":0"} {
		if ln, err := ListenLoopback(addr); err == nil {
			ln.Close()
			t.Errorf("%s accepted", addr)
		}
	}
}

// Every tool declares the shape of its structured result (outputSchema), and a real result
// conforms to it.
func TestToolsHaveAnOutputSchemaTheirResultsMatch(t *testing.T) {
	t.Parallel()
	f := startMCP(t)
	cs, err := f.session(t, botToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerDeadline)
	defer cancel()
	schemas := outputSchemas(ctx, t, cs)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "codex.status", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("codex.status: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	_ = json.Unmarshal(b, &v)
	if err := schemas["codex.status"].Validate(v); err != nil {
		t.Fatalf("codex.status result %s does not match its outputSchema: %v", b, err)
	}
	if err := schemas["codex.status"].Validate(map[string]any{"tasks": "nope"}); err == nil {
		t.Fatal("the schema accepts anything")
	}
}

// outputSchemas lists the tools and resolves each one's outputSchema, which must describe an
// object (or a choice of them).
func outputSchemas(ctx context.Context, t *testing.T, cs *sdk.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tl := range list.Tools {
		b, _ := json.Marshal(tl.OutputSchema)
		var s jsonschema.Schema
		if tl.OutputSchema == nil || json.Unmarshal(b, &s) != nil || (s.Type != "object" && len(s.AnyOf) == 0) {
			t.Fatalf("%s: outputSchema %s", tl.Name, b)
		}
		if schemas[tl.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
	}
	return schemas
}
