package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// `codexhost mcp` over stdio says on stderr whom it acts as and on which home: the client of
// its token, or, without one, the home's operator with how to act as another client.
func TestMCPStdioSaysWhomItActsAs(t *testing.T) {
	t.Parallel()
	h, _, token := mcpHost(t, "")
	for _, c := range []struct {
		token string
		want  []string
	}{
		{token, []string{`acting as client "bot" on home ` + h.home}},
		{"", []string{"acting as the home's operator", "on home " + h.home, "CODEXHOST_CLIENT_TOKEN"}},
	} {
		cmd := exec.Command(bin, "mcp")
		cmd.Env = h.mcpEnv(c.token)
		cmd.Dir = t.TempDir()
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		cancel()
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr)
		}
		callTool(t, cs, "codex.status", map[string]any{})
		_ = cs.Close()
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Fatalf("token %q: stderr %q lacks %q", c.token, stderr, w)
			}
		}
	}
}

// With host connection parameters (a thread's own MCP server) `codexhost mcp` says it acts
// as that thread's agent on the runtime at their endpoint, without dialing: it answers
// initialize although nothing listens there, and names neither a client nor the operator.
func TestMCPStdioWithHostParametersSaysItIsTheAgentWithoutDialing(t *testing.T) {
	t.Parallel()
	endpoint := "unix://" + t.TempDir() + "/nobody-listens.sock"
	cmd := exec.Command(bin, "mcp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + t.TempDir(),
		"CODEXHOST_RUNTIME_ENDPOINT=" + endpoint, "CODEXHOST_RUNTIME_TOKEN=not-yet-bound"}
	cmd.Dir = t.TempDir()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize without a runtime: %v\n%s", err, stderr)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	_ = cs.Close()
	got := stderr.String()
	for _, w := range []string{"acting as the agent of the thread", "CODEXHOST_RUNTIME_TOKEN", "on the runtime at " + endpoint} {
		if !strings.Contains(got, w) {
			t.Fatalf("stderr %q lacks %q", got, w)
		}
	}
	if strings.Contains(got, "home's operator") || strings.Contains(got, "acting as client") || strings.Contains(got, "not-yet-bound") {
		t.Fatalf("stderr %q", got)
	}
}

// Scenario: S004-01 — the README's Inspector stdio example, run as written (the home and
// token put in), lists the tools as the client of that token.
func TestS004_01_ReadmeInspectorStdioExample(t *testing.T) {
	t.Parallel()
	inspector := inspectorBin(t)
	h, _, token := mcpHost(t, "")
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "### Any other MCP client")
	_, rest, _ = strings.Cut(rest, "```sh\n")
	example, _, _ := strings.Cut(rest, "\nnpx mcp-inspector --cli http")
	example = strings.ReplaceAll(example, "\\\n", " ")
	args := strings.Fields(example)
	if len(args) < 3 || args[0] != "npx" || args[1] != "mcp-inspector" {
		t.Fatalf("README's stdio example %q", example)
	}
	var home, tok bool
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "CODEXHOST_HOME="):
			args[i], home = "CODEXHOST_HOME="+h.home, args[i-1] == "-e"
		case strings.HasPrefix(a, "CODEXHOST_CLIENT_TOKEN="):
			args[i], tok = "CODEXHOST_CLIENT_TOKEN="+token, args[i-1] == "-e"
		case a == "codexhost":
			args[i] = bin
		}
	}
	if !home || !tok {
		t.Fatalf("the README's stdio example does not pass -e CODEXHOST_HOME=… -e CODEXHOST_CLIENT_TOKEN=…: %q", example)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, inspector, args[2:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s\n%s", args, err, stdout.String(), stderr.String())
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil || len(list.Tools) == 0 {
		t.Fatalf("tools/list: %v\n%s", err, stdout.String())
	}
}
