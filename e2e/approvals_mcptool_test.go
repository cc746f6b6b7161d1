package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// markerTool builds testdata/markertool, a stdio MCP server of this test whose one tool
// (write_marker, neither read-only nor declared harmless) appends its text to marker, and
// gives it to h's Codex as the MCP server markertool.
func markerTool(t *testing.T, h *host) (marker string) {
	t.Helper()
	dir := t.TempDir()
	exe, marker := filepath.Join(dir, "markertool"), filepath.Join(dir, "marker")
	build := exec.Command("go", "build", "-o", exe, "./testdata/markertool")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building markertool: %v\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(h.codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n[mcp_servers.markertool]\ncommand = " + tomlString(exe) + "\nargs = [" + tomlString(marker) + "]\n"); err != nil {
		t.Fatal(err)
	}
	return marker
}

// Issue 28 (MCP tool-call elicitations) on the real App Server: under --approval on-request
// (and untrusted alike) Codex asks (mcpServer/elicitation/request) before a tool of an MCP server runs that its
// config does not approve. The question waits as an approval of kind mcpToolCall naming the
// server; accept lets the tool run (it writes the marker and the model gets its answer),
// decline keeps it from running.
func TestApprovalOfAnMCPToolCall(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{})
	ci := h.addClient("ci")
	marker := markerTool(t, h)
	for _, c := range []struct{ decision, approval string }{{"accept", "on-request"}, {"decline", "on-request"}, {"accept", "untrusted"}} {
		decision := c.decision
		t.Run(decision+"-"+c.approval, func(t *testing.T) {
			before := len(h.fake.Requests())
			h.fake.Enqueue(fakemodel.MCPToolCall("markertool", "write_marker", `{"text":"marker-`+decision+"-"+c.approval+`"}`), fakemodel.Reply("done"))
			th := h.delegate(ci, "--harness", "codex", "--approval", c.approval, "--task", "write the marker "+decision+" under "+c.approval)
			a := pendingApproval(t, h, ci, th.Thread.ID)
			var full struct {
				Approvals []struct {
					approvalView
					Server string `json:"server"`
					Reason string `json:"reason"`
				} `json:"approvals"`
			}
			h.asClient(ci, "approvals", "--pending", "--json").decode(t, &full)
			if a.Kind != "mcpToolCall" || len(full.Approvals) != 1 || full.Approvals[0].Server != "markertool" || full.Approvals[0].Reason == "" {
				t.Fatalf("approval %+v, listed %+v", a, full.Approvals)
			}
			if b, _ := os.ReadFile(marker); strings.Contains(string(b), "marker-"+decision+"-"+c.approval) {
				t.Fatal("the tool ran before it was approved")
			}
			var done struct {
				Approval approvalView `json:"approval"`
			}
			h.asClient(ci, "approve", a.ID, "--decision", decision, "--json").decode(t, &done)
			if done.Approval.State != "answered" || done.Approval.Decision != decision {
				t.Fatalf("answered %+v", done.Approval)
			}
			h.waitCompleted(ci, th.Thread.ID)
			var out string
			for _, r := range h.fake.Requests()[before:] {
				if o, ok := r.ToolOutput(); ok {
					out = o
				}
			}
			b, _ := os.ReadFile(marker)
			ran := strings.Contains(string(b), "marker-"+decision+"-"+c.approval)
			told := strings.Contains(out, "marker written: marker-"+decision+"-"+c.approval)
			if out == "" || ran != (decision == "accept") || told != ran {
				t.Fatalf("after %s the marker holds %q and the model got %q", decision, b, out)
			}
			t.Logf("%s: the model got %q", decision, out)
		})
	}
}
