package fakemodel_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// toolBody is a request like Codex's: the user text, the tools offered, and optionally the
// tool call and its output, which is how Codex sends the follow-up of a call.
func toolBody(t *testing.T, userText string, tools []string, callOutput any) []byte {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(body(userText), &req); err != nil {
		t.Fatal(err)
	}
	var offered []any
	for _, name := range tools {
		offered = append(offered, map[string]any{"type": "function", "name": name, "parameters": map[string]any{}})
	}
	req["tools"] = offered
	if callOutput != nil {
		req["input"] = append(req["input"].([]any),
			map[string]any{"type": "function_call", "name": tools[0], "arguments": "{}", "call_id": "call_fake_1"},
			map[string]any{"type": "function_call_output", "call_id": "call_fake_1", "output": callOutput})
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// functionCall returns the function_call item of a response and checks the events around it.
func functionCall(t *testing.T, evs []sseEvent) map[string]any {
	t.Helper()
	if got := names(evs); got != "response.created,response.output_item.done,response.completed" {
		t.Fatalf("events %s", got)
	}
	item := evs[1].Data["item"].(map[string]any)
	if item["type"] != "function_call" {
		t.Fatalf("item %v", item)
	}
	return item
}

func TestShellCallsTheOfferedShellToolThenAnswersTheFollowup(t *testing.T) {
	ctx := ctxFor(t, 10*time.Second)
	tests := []struct {
		tools []string
		name  string
		args  map[string]any
	}{
		// exec_command is preferred whatever the order of the offer.
		{[]string{"write_stdin", "shell", "exec_command"}, "exec_command", map[string]any{"cmd": "echo one", "yield_time_ms": float64(10000)}},
		{[]string{"view_image", "shell_command"}, "shell_command", map[string]any{"command": "echo one"}},
		{[]string{"shell"}, "shell", map[string]any{"command": []any{"bash", "-lc", "echo one"}}},
	}
	for _, tc := range tests {
		s := fakemodel.Start(t)
		text := "run it [[mode:shell]] [[cmd: echo one ]]"
		item := functionCall(t, open(t, ctx, s, toolBody(t, text, tc.tools, nil)).all(t))
		var args map[string]any
		if err := json.Unmarshal([]byte(item["arguments"].(string)), &args); err != nil {
			t.Fatalf("%v: arguments %v: %v", tc.tools, item["arguments"], err)
		}
		if item["name"] != tc.name || item["call_id"] != "call_fake_1" || !reflect.DeepEqual(args, tc.args) {
			t.Errorf("%v: call %v with %v, want %s with %v", tc.tools, item["name"], args, tc.name, tc.args)
		}

		// The marker still decides the follow-up; it must end the turn, not call again.
		evs := open(t, ctx, s, toolBody(t, text, tc.tools, "Process exited with code 0\nOutput:\none\n")).all(t)
		if got := names(evs); got != fullReply {
			t.Fatalf("%v: follow-up events %s", tc.tools, got)
		}
		if got := replyText(t, evs); got != "tool finished (fake reply #2)" {
			t.Errorf("%v: follow-up reply %q", tc.tools, got)
		}
		reqs := s.Requests()
		if _, ok := reqs[0].ToolOutput(); ok || reqs[0].Mode != "shell" {
			t.Errorf("%v: first request: mode %q, ToolOutput ok=%v", tc.tools, reqs[0].Mode, ok)
		}
		if out, ok := reqs[1].ToolOutput(); !ok || out != "Process exited with code 0\nOutput:\none\n" {
			t.Errorf("%v: follow-up ToolOutput = %q, %v", tc.tools, out, ok)
		}
	}
}

func TestShellFromTheQueueWithTheDefaultCommand(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	s.Enqueue(fakemodel.Shell(""))
	item := functionCall(t, open(t, ctx, s, toolBody(t, "plain text", []string{"exec_command"}, nil)).all(t))
	if !strings.Contains(item["arguments"].(string), fakemodel.DefaultShellCommand) {
		t.Fatalf("arguments %v", item["arguments"])
	}
	// The queue is empty now: the follow-up gets the default reply.
	parts := []any{map[string]any{"type": "input_text", "text": "part one, "}, map[string]any{"type": "input_text", "text": "part two"}}
	evs := open(t, ctx, s, toolBody(t, "plain text", []string{"exec_command"}, parts)).all(t)
	if got := replyText(t, evs); got != "fake reply #2 to: plain text" {
		t.Fatalf("follow-up reply %q", got)
	}
	if out, ok := s.Requests()[1].ToolOutput(); !ok || out != "part one, part two" {
		t.Fatalf("ToolOutput of content parts = %q, %v", out, ok)
	}
}

func TestShellWithoutAShellToolAnswers400NamingTheOffer(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	resp := post(t, ctx, s.URL(), toolBody(t, "[[mode:shell]]", []string{"view_image", "web_search"}, nil))
	msg := errorMessage(t, resp)
	if resp.StatusCode != 400 || !strings.Contains(msg, "exec_command") || !strings.Contains(msg, "view_image web_search") {
		t.Fatalf("%d %q", resp.StatusCode, msg)
	}
}

// namespacedBody is a request offering the top-level tools and, like Codex's multi-agent
// tools, a namespace tool whose members are the functions the model may call.
func namespacedBody(t *testing.T, userText string, tools []string, namespace string, members []string) []byte {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(toolBody(t, userText, tools, nil), &req); err != nil {
		t.Fatal(err)
	}
	var fns []any
	for _, name := range members {
		fns = append(fns, map[string]any{"type": "function", "name": name, "parameters": map[string]any{}})
	}
	req["tools"] = append(req["tools"].([]any), map[string]any{"type": "namespace", "name": namespace, "description": "d", "tools": fns})
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFunctionCallNamesTheNamespaceOfANamespacedTool(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	args := `{"message":"[[mode:hang]] sub-agent task"}`
	s.Enqueue(fakemodel.FunctionCall("spawn_agent", args), fakemodel.FunctionCall("view_image", ""))
	payload := namespacedBody(t, "plain text", []string{"view_image"}, "multi_agent_v1", []string{"wait_agent", "spawn_agent"})
	item := functionCall(t, open(t, ctx, s, payload).all(t))
	if item["name"] != "spawn_agent" || item["namespace"] != "multi_agent_v1" || item["arguments"] != args || item["call_id"] != "call_fake_1" {
		t.Fatalf("call %v", item)
	}
	// A top-level tool has no namespace; empty arguments are an empty object.
	item = functionCall(t, open(t, ctx, s, payload).all(t))
	if _, ok := item["namespace"]; ok || item["name"] != "view_image" || item["arguments"] != "{}" {
		t.Fatalf("call %v", item)
	}
	if reqs := s.Requests(); reqs[0].Mode != "call" || reqs[1].Mode != "call" {
		t.Fatalf("modes %q %q", reqs[0].Mode, reqs[1].Mode)
	}
}

func TestFunctionCallMarkerCallsThenAnswersTheFollowup(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	text := `look [[mode:call]] [[tool:view_image]] [[args:{"path":"/w/a.png"}]]`
	item := functionCall(t, open(t, ctx, s, toolBody(t, text, []string{"exec_command", "view_image"}, nil)).all(t))
	if item["name"] != "view_image" || item["arguments"] != `{"path":"/w/a.png"}` {
		t.Fatalf("call %v", item)
	}
	// The marker still decides the follow-up; it must end the turn, not call again.
	evs := open(t, ctx, s, toolBody(t, text, []string{"view_image"}, "image shown")).all(t)
	if got := replyText(t, evs); got != "tool finished (fake reply #2)" {
		t.Fatalf("follow-up reply %q", got)
	}
}

func TestFunctionCallRefusals400WithReason(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	offer := namespacedBody(t, "[[mode:call]] [[tool:close_agent]]", []string{"view_image"}, "multi_agent_v1", []string{"spawn_agent"})
	resp := post(t, ctx, s.URL(), offer)
	if msg := errorMessage(t, resp); resp.StatusCode != 400 || !strings.Contains(msg, "does not offer the tool close_agent") || !strings.Contains(msg, "view_image multi_agent_v1.spawn_agent") {
		t.Errorf("tool not offered: %d %q", resp.StatusCode, msg)
	}
	resp = post(t, ctx, s.URL(), toolBody(t, "[[mode:call]] [[args:{}]]", []string{"view_image"}, nil))
	if msg := errorMessage(t, resp); resp.StatusCode != 400 || !strings.Contains(msg, "needs [[tool:NAME]]") {
		t.Errorf("no tool: %d %q", resp.StatusCode, msg)
	}
	for _, args := range []string{"not json", "[1]", "null"} {
		s.Enqueue(fakemodel.FunctionCall("view_image", args))
		resp = post(t, ctx, s.URL(), toolBody(t, "x", []string{"view_image"}, nil))
		if msg := errorMessage(t, resp); resp.StatusCode != 400 || !strings.Contains(msg, "not a JSON object: "+args) {
			t.Errorf("arguments %q: %d %q", args, resp.StatusCode, msg)
		}
	}
}
