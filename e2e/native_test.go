package e2e

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// toolRun is what one exec_command call of a native turn printed, as the fake model received
// it in the follow-up request.
type toolRun struct {
	header string   // Codex's lines before "Output:" (exit code, wall time)
	lines  []string // the command's combined stdout and stderr
}

// nativeToolCall starts a native thread whose model runs command through its shell tool, waits
// for the turn to complete and returns the thread and what the command printed.
func nativeToolCall(t *testing.T, h *host, token, command string) (startResult, toolRun) {
	t.Helper()
	native := h.delegate(token, "--harness", "codex", "--task", "[[mode:shell]] [[cmd:"+command+"]]")
	if native.Thread.Harness != "codex" {
		t.Fatalf("started %+v, want a native thread", native.Thread)
	}
	// The fake model numbers its replies across threads: another thread's turns may come first.
	if got := h.waitCompleted(token, native.Thread.ID).Result.Text; !strings.HasPrefix(got, "tool finished (fake reply #") {
		t.Fatalf("the native turn answered %q; the fake model's tool call did not complete", got)
	}
	var outputs []string
	for _, r := range h.fake.Requests() {
		if out, ok := r.ToolOutput(); ok {
			outputs = append(outputs, out)
		}
	}
	if len(outputs) != 1 {
		t.Fatalf("want one tool output in the model requests, got %q", outputs)
	}
	header, body, ok := strings.Cut(outputs[0], "Output:\n")
	if !ok {
		t.Fatalf("tool output without an Output: section: %q", outputs[0])
	}
	return native, toolRun{header: header, lines: strings.Split(strings.TrimRight(body, "\n"), "\n")}
}

// json returns the output line that starts with prefix, decoded into v.
func (r toolRun) json(t *testing.T, prefix string, v any) {
	t.Helper()
	for _, line := range r.lines {
		if strings.HasPrefix(line, prefix) {
			if err := json.Unmarshal([]byte(line), v); err != nil {
				t.Fatalf("tool output line %q: %v", line, err)
			}
			return
		}
	}
	t.Fatalf("no line starting with %q in the tool output %q", prefix, r.lines)
}

// Scenario: S000-06 — the CLI run by a native Codex tool call, in a sandbox that allows local
// connections, reaches the same runtime with the parameters whitelisted to the App Server (Codex
// passes them on to the commands it runs), and without --parent-thread the caller is the one
// native thread with an active turn. Both sandboxes that allow it here are covered:
// workspace-write with network access, and danger-full-access. (Read-only and plain
// workspace-write block the socket: see S000-07.)
func TestS000_06_NativeToolCallCallerIsTheActiveNativeThread(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []string{"workspace-write+network", "danger-full-access"} {
		t.Run(sandbox, func(t *testing.T) {
			// The sandboxed author may create external threads only because leaf is opted in
			// (runtime: TestMarkerCreatedThreadsRunWithTheirAuthorsSandbox has the refusal).
			h := startHost(t, hostConfig{sandbox: sandbox, env: []string{"CODEXHOST_SECRET=x"},
				config: "[harnesses.leaf]\ncommand = [\"cat\"]\nallow_sandboxed_callers = true\n"})
			tok := h.addClient("ci")
			native, out := nativeToolCall(t, h, tok,
				`env | grep ^CODEXHOST_ | sort; "$CODEXHOST_CLI_PATH" delegate start --harness leaf --task from-the-tool 2>&1`)

			self, err := filepath.EvalSymlinks(bin)
			if err != nil {
				t.Fatal(err)
			}
			var env []string
			for _, line := range out.lines {
				if strings.HasPrefix(line, "CODEXHOST_") {
					name, _, _ := strings.Cut(line, "=")
					env = append(env, name)
					if name == "CODEXHOST_CLI_PATH" && line != name+"="+self || name == "CODEXHOST_RUNTIME_ENDPOINT" && line != name+"="+h.unix {
						t.Errorf("the tool command got %s", line)
					}
				}
			}
			if want := []string{"CODEXHOST_CLI_PATH", "CODEXHOST_RUNTIME_ENDPOINT", "CODEXHOST_RUNTIME_TOKEN"}; !reflect.DeepEqual(env, want) {
				t.Errorf("CODEXHOST_* variables of the tool command: %v, want %v", env, want)
			}

			var child startResult
			out.json(t, "{", &child)
			want := origin{Kind: "thread", ParentThread: native.Thread.ID, DelegationID: child.DelegationID}
			if got := h.read(tok, child.Thread.ID).Thread.Origin; child.DelegationID == "" || got == nil || *got != want {
				t.Errorf("child started from the tool call: origin %+v, want %+v\n%s", got, want, strings.Join(out.lines, "\n"))
			}
			if got := h.listIDs(tok, "--parent", native.Thread.ID); !reflect.DeepEqual(got, []string{child.Thread.ID}) {
				t.Errorf("thread list --parent <native>: %v, want [%s]", got, child.Thread.ID)
			}
		})
	}
}

// Scenario: S000-07 — Codex's read-only sandbox (the default of these homes, and of Codex) and
// plain workspace-write block the tool command's connect(2) to the runtime's Unix socket; the
// CLI sees EPERM ("operation not permitted"). It fails with RUNTIME_UNREACHABLE naming the
// endpoint it was given, advises a session sandbox that allows local connections or having the
// user run the command, and falls back to nothing: the codexhost first on PATH is not run, no
// thread is started, no other request reaches the model.
func TestS000_07_SandboxBlockingTheSocketIsRuntimeUnreachable(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []string{"", "workspace-write"} {
		name := sandbox
		if name == "" {
			name = "read-only"
		}
		t.Run(name, func(t *testing.T) { testSandboxBlocksTheSocket(t, sandbox) })
	}
}

func testSandboxBlocksTheSocket(t *testing.T, sandbox string) {
	fake := fakeCodexhost(t)
	h := startHost(t, hostConfig{sandbox: sandbox, pathFirst: fake, harnesses: map[string][]string{"leaf": echoHarness}})
	tok := h.addClient("ci")
	native, out := nativeToolCall(t, h, tok,
		`"$CODEXHOST_CLI_PATH" delegate start --harness leaf --task from-the-tool 2>&1; echo "exit=$?"`)

	var failed struct{ Error cliError }
	out.json(t, `{"error"`, &failed)
	e := failed.Error
	t.Logf("inside the sandbox: %s", e.Message)
	if e.Code != "RUNTIME_UNREACHABLE" || e.Details["endpoint"] != h.unix ||
		!strings.Contains(e.Hint, "sandbox that allows local connections") || !strings.Contains(e.Hint, "ask the user to run the command") {
		t.Errorf("error %+v, want RUNTIME_UNREACHABLE for %s with the sandbox advice", e, h.unix)
	}
	if last := out.lines[len(out.lines)-1]; last != "exit=1" {
		t.Errorf("the CLI ended with %q, want exit=1", last)
	}
	if strings.Contains(strings.Join(out.lines, "\n"), ranMarker) {
		t.Error("the codexhost on PATH was run")
	}
	if got := h.listIDs(tok); !reflect.DeepEqual(got, []string{native.Thread.ID}) {
		t.Errorf("threads after the blocked call: %v, want only the native thread %s", got, native.Thread.ID)
	}
	if n := len(h.fake.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want the call and its follow-up", n)
	}
}

// Scenario: S000-06 — with another native thread running its own turn, a native thread's tool
// command is still its own caller, exactly: the token its shell got names it, so delegate
// start without --parent-thread makes that thread the parent (no PARENT_THREAD_AMBIGUOUS, no
// guess among the active turns).
func TestNativeToolCallerIsExactWithAnotherNativeThreadActive(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{sandbox: "danger-full-access",
		config: "[harnesses.leaf]\ncommand = [\"cat\"]\nallow_sandboxed_callers = true\n"})
	tok := h.addClient("ci")
	other := h.delegate(tok, "--harness", "codex", "--task", "[[mode:slow]] [[delay:0.2]] [[duration:60]] keep going")
	if st := other.Thread.Status; st != "running" {
		t.Fatalf("the other native thread is %s, want running", st)
	}
	native, out := nativeToolCall(t, h, tok, `"$CODEXHOST_CLI_PATH" delegate start --harness leaf --task from-the-tool 2>&1`)
	if st := h.read(tok, other.Thread.ID).Thread.Status; st != "running" {
		t.Fatalf("the other native thread stopped (%s) before the tool call ended: the check saw one active thread", st)
	}
	var child startResult
	out.json(t, "{", &child)
	want := origin{Kind: "thread", ParentThread: native.Thread.ID, DelegationID: child.DelegationID}
	if got := h.read(tok, child.Thread.ID).Thread.Origin; child.DelegationID == "" || got == nil || *got != want {
		t.Errorf("child of the tool call with two native threads active: origin %+v, want %+v\n%s", got, want, strings.Join(out.lines, "\n"))
	}
	if r := h.asClient(tok, "thread", "cancel", other.Thread.ID); r.code != 0 {
		t.Errorf("cancel of the other native thread: %s", r)
	}
}
