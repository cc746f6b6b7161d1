package fakemodel_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/fakemodel"
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
