package e2e

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/model"
)

// asCLI is what the CLI prints for args as the client of token, decoded as JSON with the
// ready-to-run commands left out: they name the CLI, which a tool's result cannot.
func asCLI(t *testing.T, h *host, token string, args ...string) map[string]any {
	t.Helper()
	var out map[string]any
	h.asClient(token, args...).decode(t, &out)
	delete(out, "next")
	return out
}

// asTool is a tool's structured result in the same form as asCLI's.
func asTool(t *testing.T, cs *sdk.ClientSession, name string, args any) map[string]any {
	t.Helper()
	out := structured[map[string]any](t, callTool(t, cs, name, args))
	delete(out, "next")
	return out
}

func sameAnswer(t *testing.T, what string, tool, cli map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(tool, cli) {
		a, _ := json.Marshal(tool)
		b, _ := json.Marshal(cli)
		t.Fatalf("%s: the tool answered\n%s\nthe CLI\n%s", what, a, b)
	}
}

// The thread tools over MCP are the CLI's agent contract: a client's MCP session delegates,
// waits, reads, lists, sends, cancels and watches through them (dotted names and aliases),
// each answer is the CLI's for the same call of the same client, the same limits refuse, and
// another client's session lists only its own principal and cannot send to the thread.
func TestThreadToolsOverMCPAnswerAsTheCLI(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{config: threadToolsConfig})
	tok, otherTok := h.addClient("ci"), h.addClient("other")
	cs := mcpStdio(t, h.mcpEnv(tok))

	started := asTool(t, cs, "thread.delegate_start", map[string]any{"harness": "leaf", "task": "leaf answer 7", "requestId": "r-1", "refs": []string{"issue:29"}, "cwd": h.work})
	id, _ := started["threadId"].(string)
	if id == "" || started["existing"] != false {
		t.Fatalf("delegate_start answered %v", started)
	}
	again := asCLI(t, h, tok, "delegate", "start", "--harness", "leaf", "--task", "leaf answer 7", "--request-id", "r-1", "--ref", "issue:29", "--cwd", h.work)
	if again["threadId"] != id || again["existing"] != true {
		t.Fatalf("the same requestId through the CLI: %v", again)
	}

	waited := asTool(t, cs, "thread_wait", map[string]any{"thread": id, "timeoutMs": 20000})
	if res, _ := waited["result"].(map[string]any); waited["status"] != "completed" || !strings.Contains(mustJSON(res), "leaf answer 7") {
		t.Fatalf("thread_wait answered %v", waited)
	}
	sameAnswer(t, "wait", waited, asCLI(t, h, tok, "thread", "wait", id, "--timeout-ms", "20000"))
	sameAnswer(t, "read", asTool(t, cs, "thread.read", map[string]any{"thread": id}), asCLI(t, h, tok, "thread", "read", id))
	sameAnswer(t, "read messages", asTool(t, cs, "thread_read", map[string]any{"thread": id, "view": "messages", "limit": 1}),
		asCLI(t, h, tok, "thread", "read", id, "--view", "messages", "--limit", "1"))
	listed := asTool(t, cs, "thread.list", map[string]any{"anyCwd": true, "ref": "issue:29", "sort": "created-asc"})
	if _, ok := listed["nextCursor"]; !ok {
		listed["nextCursor"] = nil // the CLI prints the last page's cursor as null, the API leaves it out
	}
	sameAnswer(t, "list", listed, asCLI(t, h, tok, "thread", "list", "--all-cwd", "--ref", "issue:29", "--sort", "created-asc"))
	if threads, _ := listed["threads"].([]any); len(threads) != 1 {
		t.Fatalf("list by ref: %v", listed)
	}

	sent := asTool(t, cs, "thread_send", map[string]any{"thread": id, "message": "second answer 8"})
	if sent["threadId"] != id || sent["turnId"] == "" {
		t.Fatalf("thread_send answered %v", sent)
	}
	if w := asTool(t, cs, "thread.wait", map[string]any{"thread": id}); !strings.Contains(mustJSON(w["result"]), "second answer 8") {
		t.Fatalf("after send: %v", w)
	}
	sameAnswer(t, "cancel", asTool(t, cs, "thread.cancel", map[string]any{"thread": id}), asCLI(t, h, tok, "thread", "cancel", id))
	watched := asTool(t, cs, "thread_watch", map[string]any{"thread": id, "on": "stop"})
	if watched["state"] != "alreadyTerminal" {
		t.Fatalf("thread_watch on a stopped thread: %v", watched)
	}
	sameAnswer(t, "watch", watched, asCLI(t, h, tok, "thread", "watch", id, "--on", "stop"))

	// The same limits refuse, before anything runs.
	toolError(t, callTool(t, cs, "thread.wait", map[string]any{"thread": id, "timeoutMs": 600001}), model.CodeInvalidArgument)
	toolError(t, callTool(t, cs, "thread.list", map[string]any{"limit": 101}), model.CodeInvalidArgument)
	toolError(t, callTool(t, cs, "thread.watch", map[string]any{"thread": id, "on": "later"}), model.CodeInvalidArgument)
	toolError(t, callTool(t, cs, "thread.delegate_start", map[string]any{"harness": "leaf", "task": "x", "parent": id}), model.CodeInvalidArgument)

	// Another client's session: an id is the authorisation to read (as the CLI), but lists
	// show its own principal only and a send is refused with the CLI's code.
	other := mcpStdio(t, h.mcpEnv(otherTok))
	sameAnswer(t, "another client's read", asTool(t, other, "thread.read", map[string]any{"thread": id}), asCLI(t, h, otherTok, "thread", "read", id))
	theirs := structured[struct{ Threads []struct{ ID string } }](t, callTool(t, other, "thread_list", map[string]any{"anyCwd": true}))
	if slices.ContainsFunc(theirs.Threads, func(th struct{ ID string }) bool { return th.ID == id }) {
		t.Fatalf("another client lists %s", id)
	}
	cliRefusal := h.asClient(otherTok, "thread", "send", id, "--message", "hijack").failure(t)
	if toolError(t, callTool(t, other, "thread.send", map[string]any{"thread": id, "message": "hijack"}), model.Code(cliRefusal.Code)).Code != model.CodePermissionDenied {
		t.Fatalf("another client's send: %v", cliRefusal)
	}
}
