package e2e

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
)

// Scenario: S000-12 — `codexhost delegate --help` of the built binary prints the embedded
// manual for this binary's version, with the syntax of the delegate and thread commands.
// (cli/manual_test.go checks the manual's content section by section.)
func TestS000_12_DelegateHelpOfTheBuiltBinary(t *testing.T) {
	t.Parallel()
	dir, env := t.TempDir(), []string{"HOME=" + t.TempDir()}
	var version result
	if version = run(t, dir, env, "version"); version.code != 0 || !strings.HasPrefix(version.stdout, "codexhost "+testVersion+" ") {
		t.Fatalf("the binary is not the build under test\n%s", version)
	}
	manual := run(t, dir, env, "delegate", "--help")
	if manual.code != 0 || manual.stderr != "" {
		t.Fatalf("delegate --help failed\n%s", manual)
	}
	if first, _, _ := strings.Cut(manual.stdout, "\n"); first != "CODEXHOST DELEGATION MANUAL (codexhost "+testVersion+")" {
		t.Errorf("the manual starts with %q, want this binary's version %s", first, testVersion)
	}
	for _, syntax := range []string{
		"codexhost delegate start --harness H", "codexhost thread read T", "codexhost thread wait T",
		"codexhost thread list", "codexhost thread send T", "codexhost thread cancel T",
		"codexhost thread watch T", "codexhost thread watches",
		"--parent-thread", "--request-id", "--ref", "--view", "--timeout-ms", "--cursor", "--sort", "--format",
		"RUNTIME_UNREACHABLE", "PARENT_THREAD_AMBIGUOUS", "HARNESS_NOT_FOUND",
	} {
		if !strings.Contains(manual.stdout, syntax) {
			t.Errorf("the manual lacks %q", syntax)
		}
	}
	// Needs no runtime, and every way of asking prints the same manual.
	for _, args := range [][]string{{"delegate", "-h"}, {"help", "delegate"}} {
		if r := run(t, dir, env, args...); r.code != 0 || r.stdout != manual.stdout {
			t.Errorf("codexhost %s does not print the same manual\n%s", strings.Join(args, " "), r)
		}
	}
}

// Scenario: S000-14 — every delegate and thread command prints one JSON document on stdout
// when it works (nothing on stderr, exit 0); a failure prints {"error":{code, message, hint}}
// on stderr, nothing on stdout, exit 1. --format compact is shorter JSON that names threads by
// link.
func TestS000_14_OutputIsStructured(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{
		"echo":    echoHarness,
		"sleeper": {"sh", "-c", "cat >/dev/null; exec sleep 60"},
	}})
	tok := h.addClient("ci")

	// Successes; decode checks the contract of each.
	var doc map[string]any
	started := h.delegate(tok, "--harness", "echo", "--task", "hello")
	id := started.Thread.ID
	h.waitCompleted(tok, id)
	var msgs readResult
	h.asClient(tok, "thread", "read", started.Thread.Link, "--view", "messages").decode(t, &msgs)
	if len(msgs.Messages) != 2 || msgs.Messages[0].Text != "hello" || msgs.Messages[1].Text != "hello" {
		t.Errorf("messages of the echo thread: %+v", msgs.Messages)
	}
	for _, args := range [][]string{
		{"thread", "read", id},
		{"thread", "list"},
		{"thread", "list", "--client", "ci", "--sort", "created-asc", "--limit", "1"},
		{"thread", "watch", id},
		{"thread", "watches"},
		{"thread", "send", id, "--message", "again"},
		{"harness", "list"},
	} {
		h.asClient(tok, args...).decode(t, &doc)
	}
	sleeper := h.delegate(tok, "--harness", "sleeper", "--task", "sleep")
	busy := h.asClient(tok, "thread", "send", sleeper.Thread.ID, "--message", "now").failure(t)
	h.asClient(tok, "thread", "cancel", sleeper.Thread.ID).decode(t, &doc)
	var cancelled readResult
	h.asClient(tok, "thread", "wait", sleeper.Thread.ID, "--timeout-ms", "20000").decode(t, &cancelled)
	if cancelled.Result == nil || cancelled.Result.Status != "interrupted" {
		t.Errorf("cancelled thread: %+v", cancelled.Result)
	}

	// Failures.
	if busy.Code != "THREAD_BUSY" {
		t.Errorf("send to a running thread: %+v", busy)
	}
	h.waitCompleted(tok, id)
	for _, c := range []struct {
		code string
		args []string
	}{
		{"HARNESS_NOT_FOUND", []string{"delegate", "start", "--harness", "nope", "--task", "x"}},
		{"INVALID_ARGUMENT", []string{"delegate", "start", "--task", "x"}},
		{"INVALID_ARGUMENT", []string{"delegate", "start", "--harness", "echo", "--task", "x", "--ref", "not a uri"}},
		{"INVALID_ARGUMENT", []string{"thread", "read", "not-a-thread-id"}},
		{"INVALID_ARGUMENT", []string{"thread", "read", id, "--view", "everything"}},
		{"INVALID_ARGUMENT", []string{"thread", "read", id, "--no-such-flag"}},
		{"INVALID_ARGUMENT", []string{"thread", "list", "--sort", "sideways"}},
		{"INVALID_ARGUMENT", []string{"thread", "list", "--limit", "101"}},
		{"INVALID_ARGUMENT", []string{"thread", "read", id, "--format", "xml"}},
		{"THREAD_NOT_FOUND", []string{"thread", "read", "01a00000-0000-7000-8000-000000000000"}},
	} {
		if e := h.asClient(tok, c.args...).failure(t); e.Code != c.code {
			t.Errorf("%v: %+v, want %s", c.args, e, c.code)
		}
	}
	// Cancelling an idle thread is not an error: cancelled is false (the public contract).
	var idle struct {
		Cancelled *bool `json:"cancelled"`
	}
	if h.asClient(tok, "thread", "cancel", id).decode(t, &idle); idle.Cancelled == nil || *idle.Cancelled {
		t.Errorf("thread cancel of an idle thread: cancelled %v, want false", idle.Cancelled)
	}
	if e := h.asClient("not-a-token", "thread", "list").failure(t); e.Code != "PERMISSION_DENIED" {
		t.Errorf("with a wrong client token: %+v", e)
	}
	if e := h.asClient(tok, "delegate", "start", "--harness", "nope", "--task", "x").failure(t); !strings.Contains(e.Message, "echo") || !strings.Contains(e.Hint, "sleeper") {
		t.Errorf("HARNESS_NOT_FOUND does not list the harnesses: %+v", e)
	}

	// Compact: valid JSON, shorter, links instead of ids.
	for _, args := range [][]string{{"thread", "read", id}, {"thread", "list"}} {
		full := h.asClient(tok, args...)
		short := h.asClient(tok, append(args, "--format", "compact")...)
		var compact any
		short.decode(t, &compact)
		if len(short.stdout) >= len(full.stdout) || !strings.Contains(short.stdout, `"thread":"codex://threads/`+id+`"`) ||
			idBesideLink(compact) || api.CheckCompact(compact) != nil {
			t.Errorf("%v --format compact is not a shorter JSON with links and no ids:\n%s\nfull:\n%s", args, short.stdout, full.stdout)
		}
	}
}

// idBesideLink reports whether an object of a JSON document has both an id and a link.
func idBesideLink(doc any) bool {
	switch v := doc.(type) {
	case map[string]any:
		_, id := v["id"]
		_, link := v["link"]
		if id && link {
			return true
		}
		for _, e := range v {
			if idBesideLink(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if idBesideLink(e) {
				return true
			}
		}
	}
	return false
}
