package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/runtime/api"
)

// BenchmarkMCPRoundTrip measures tools/list and codex.status through the SDK's client over
// stdio and over Streamable HTTP, next to the bare runtime API call behind codex.status
// (task.status) in the same run and on the same runtime: the stdio server embeds it, the
// HTTP server and the bare client connect to it as the home's operator client.
func BenchmarkMCPRoundTrip(b *testing.B) {
	home, err := os.MkdirTemp("", "chb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(home) })
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + b.TempDir(), "CODEXHOST_HOME=" + home, "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	stdio := mcpStdio(b, env)
	// The bench process is the home's operator (same user, not below the runtime): no token.
	bare, err := api.Dial(context.Background(), api.UnixEndpoint(filepath.Join(home, "runtime.sock")), "")
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	stdout, stderr, code, err := execCLI(bin, b.TempDir(), env, []string{"client", "add", "bench", "--json"})
	var added struct{ Token string }
	if err != nil || code != 0 || json.Unmarshal([]byte(stdout), &added) != nil || added.Token == "" {
		b.Fatalf("client add: %v exit %d\n%s%s", err, code, stdout, stderr)
	}
	token := added.Token
	httpCS, err := httpSession(b, startMCPHTTP(b, env), token)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("runtime-api/task.status", func(b *testing.B) {
		for b.Loop() {
			var res api.TaskStatusResult
			if err := bare.Call(ctx, api.MethodTaskStatus, api.TaskStatusParams{}, &res); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, cs := range map[string]*sdk.ClientSession{"stdio": stdio, "http": httpCS} {
		b.Run(name+"/tools-list", func(b *testing.B) {
			for b.Loop() {
				if _, err := cs.ListTools(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/codex.status", func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "codex.status", Arguments: map[string]any{}})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
