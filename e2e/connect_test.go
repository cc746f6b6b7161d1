package e2e

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// Refs of the inheritance checks.
const (
	refA = "https://github.com/o/r/issues/12"
	refB = "https://example.com/spec/b"
	refC = "https://example.com/spec/c"
)

// delegating is the command of an external harness whose turn delegates to harness next,
// without --parent-thread, and answers with what the CLI printed (its error too).
func delegating(next, task, ref string) []string {
	return []string{"sh", "-c", `cat >/dev/null; exec "$CODEXHOST_CLI_PATH" delegate start --harness ` + next +
		` --task '` + task + `' --ref '` + ref + `' 2>&1`}
}

// echoHarness answers every turn with its prompt.
var echoHarness = []string{"cat"}

// decodeAnswer decodes the JSON a harness turn printed as its answer.
func decodeAnswer(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("the turn's answer is not the CLI's JSON: %v\n%s", err, text)
	}
}

// Scenario: S000-05 — inside an external harness process, without --parent-thread, the caller
// is the thread of CODEXHOST_THREAD_ID. Three generations: a client starts root with ref A;
// root's turn delegates to mid with ref B, mid's turn to leaf with ref C. Each delegation is
// recorded with its parent (S000-18), refs are inherited (S000-02), and `thread list --parent`
// finds each generation from the delegation records (S000-25).
func TestS000_05_ExternalHarnessCallerIsItsThread(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{
		"root": delegating("mid", "task of mid", refB),
		"mid":  delegating("leaf", "task of leaf", refC),
		"leaf": echoHarness,
	}})
	tok := h.addClient("ci")

	root := h.delegate(tok, "--harness", "root", "--task", "go", "--ref", refA)
	var mid, leaf startResult
	decodeAnswer(t, h.waitCompleted(tok, root.Thread.ID).Result.Text, &mid)
	decodeAnswer(t, h.waitCompleted(tok, mid.Thread.ID).Result.Text, &leaf)
	if got := h.waitCompleted(tok, leaf.Thread.ID).Result.Text; got != "task of leaf" {
		t.Errorf("leaf answered %q", got)
	}

	checks := []struct {
		name     string
		started  startResult
		origin   origin
		refs     []string
		children []string
	}{
		{"root", root, origin{Kind: "client", Client: "ci", DelegationID: root.DelegationID}, []string{refA}, []string{mid.Thread.ID}},
		{"mid", mid, origin{Kind: "thread", ParentThread: root.Thread.ID, DelegationID: mid.DelegationID}, []string{refA, refB}, []string{leaf.Thread.ID}},
		{"leaf", leaf, origin{Kind: "thread", ParentThread: mid.Thread.ID, DelegationID: leaf.DelegationID}, []string{refA, refB, refC}, []string{}},
	}
	for _, c := range checks {
		if c.origin.Kind == "thread" && c.started.DelegationID == "" {
			t.Errorf("%s: delegate start printed no delegationId: %+v", c.name, c.started)
		}
		for _, th := range []threadInfo{c.started.Thread, h.read(tok, c.started.Thread.ID).Thread} {
			if th.Origin == nil || *th.Origin != c.origin {
				t.Errorf("%s: origin %+v, want %+v", c.name, th.Origin, c.origin)
			}
			if !reflect.DeepEqual(th.Refs, c.refs) {
				t.Errorf("%s: refs %q, want %q", c.name, th.Refs, c.refs)
			}
		}
		if got := h.listIDs(tok, "--parent", c.started.Thread.ID); !reflect.DeepEqual(got, c.children) {
			t.Errorf("thread list --parent %s: %v, want %v", c.name, got, c.children)
		}
	}
	if got, want := h.listIDs(tok, "--ref", refB), sorted(mid.Thread.ID, leaf.Thread.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("thread list --ref B: %v, want %v", got, want)
	}
}

// Scenario: S000-11 — outside host processes a client token opens the external listener (the
// home's socket, or TCP) and the caller is that client. Inside a harness process, where the
// host parameters are set too, they win: the CLI there has a valid client token and a client
// endpoint that does not exist, and it still reaches the runtime, as the harness's thread.
func TestS000_11_ClientTokenOutsideHostParamsWinInside(t *testing.T) {
	t.Parallel()
	tokenFile := filepath.Join(t.TempDir(), "token")
	h := startHost(t, hostConfig{listen: true, harnesses: map[string][]string{
		"both": {"sh", "-c", `cat >/dev/null; CODEXHOST_CLIENT_TOKEN="$(cat '` + tokenFile + `')" ` +
			`CODEXHOST_ENDPOINT=unix:///nonexistent/runtime.sock exec "$CODEXHOST_CLI_PATH" delegate start --harness leaf --task inner 2>&1`},
		"leaf": echoHarness,
	}})
	tok := h.addClient("bot")
	if err := os.WriteFile(tokenFile, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	client := origin{Kind: "client", Client: "bot"}

	viaSocket := h.delegate(tok, "--harness", "leaf", "--task", "over the socket")
	// Over TCP, with the token as a flag and no home at all.
	var viaTCP startResult
	run(t, h.work, []string{"HOME=" + h.cliHome}, "delegate", "start", "--harness", "leaf", "--task", "over tcp",
		"--client-token", tok, "--endpoint", h.tcp).decode(t, &viaTCP)
	for _, started := range []startResult{viaSocket, viaTCP} {
		// A client's start reads back the delegation id it printed.
		want := client
		want.DelegationID = started.DelegationID
		if th := started.Thread; th.Origin == nil || *th.Origin != want || want.DelegationID == "" {
			t.Errorf("thread %s started by the client has origin %+v, want %+v", th.ID, th.Origin, want)
		}
	}

	outer := h.delegate(tok, "--harness", "both", "--task", "both sets")
	var inner startResult
	decodeAnswer(t, h.waitCompleted(tok, outer.Thread.ID).Result.Text, &inner)
	want := origin{Kind: "thread", ParentThread: outer.Thread.ID, DelegationID: inner.DelegationID}
	if got := h.read(tok, inner.Thread.ID).Thread.Origin; got == nil || *got != want || want.DelegationID == "" {
		t.Errorf("child started with host parameters and a client token: origin %+v, want %+v", got, want)
	}
	if got, want := h.listIDs(tok, "--client", "bot"), sorted(viaSocket.Thread.ID, viaTCP.Thread.ID, outer.Thread.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("thread list --client bot: %v, want %v", got, want)
	}
}

// fakeCodexhost puts a `codexhost` first on a PATH that records being run in dir/ran and
// prints ranMarker and a plausible answer: a CLI that fell back to PATH would be caught.
func fakeCodexhost(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	script := "#!/bin/sh\necho \"$@\" >> '" + filepath.Join(dir, "ran") + "' 2>/dev/null\necho " + ranMarker + "\n" +
		`echo '{"thread":{"id":"01a00000-0000-7000-8000-000000000000"}}'` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "codexhost"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

const ranMarker = "FAKE-CODEXHOST-FROM-PATH-RAN"

// Scenario: S000-10 — without host parameters and without a client token, or with an endpoint
// nobody answers, the CLI fails with RUNTIME_UNREACHABLE (a JSON error on stderr, exit 1) and
// never runs another codexhost found on PATH.
func TestS000_10_NoConnectionIsRuntimeUnreachableWithoutFallback(t *testing.T) {
	t.Parallel()
	fake := fakeCodexhost(t)
	path := "PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH")
	empty := t.TempDir()

	// A socket file that nobody listens on any more: what a stopped runtime leaves behind.
	stale := filepath.Join(t.TempDir(), "runtime.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()

	const sandboxAdvice = "use a session sandbox that allows local connections, or ask the user to run the command"
	cases := []struct {
		name string
		env  []string
		hint string
	}{
		{"no host parameters and no client token", []string{"HOME=" + empty}, "--client-token"},
		{"no host parameters, home without runtime", []string{"HOME=" + empty, "CODEXHOST_HOME=" + empty, "CODEXHOST_CLIENT_TOKEN=0123"}, sandboxAdvice},
		{"host endpoint missing", []string{"HOME=" + empty, "CODEXHOST_RUNTIME_ENDPOINT=unix:///nonexistent/runtime.sock",
			"CODEXHOST_RUNTIME_TOKEN=0123", "CODEXHOST_CLI_PATH=" + filepath.Join(fake, "codexhost")}, sandboxAdvice},
		{"host endpoint stale", []string{"HOME=" + empty, "CODEXHOST_RUNTIME_ENDPOINT=unix://" + stale, "CODEXHOST_RUNTIME_TOKEN=0123"}, sandboxAdvice},
		{"host token missing", []string{"HOME=" + empty, "CODEXHOST_RUNTIME_ENDPOINT=unix://" + stale, "CODEXHOST_CLIENT_TOKEN=0123"}, "CODEXHOST_RUNTIME_TOKEN"},
		{"client endpoint dead", []string{"HOME=" + empty, "CODEXHOST_CLIENT_TOKEN=0123", "CODEXHOST_ENDPOINT=tcp://127.0.0.1:1"}, sandboxAdvice},
	}
	commands := [][]string{
		{"delegate", "start", "--harness", "shell", "--task", "x"},
		{"thread", "read", "01a00000-0000-7000-8000-000000000000"},
		{"thread", "list"},
	}
	for _, c := range cases {
		for _, args := range commands {
			e := run(t, t.TempDir(), append([]string{path}, c.env...), args...).failure(t)
			if e.Code != "RUNTIME_UNREACHABLE" || !strings.Contains(e.Hint, c.hint) {
				t.Errorf("%s: %v: %+v, want RUNTIME_UNREACHABLE with a hint containing %q", c.name, args, e, c.hint)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(fake, "ran")); !os.IsNotExist(err) {
		t.Errorf("the codexhost on PATH was run (%v)", err)
	}
}

// Scenario: S000-09 — the App Server's environment holds exactly the whitelisted connection
// parameters among the CODEXHOST_* variables, although serve runs with others, and none of
// serve's non-whitelisted variables.
func TestS000_09_AppServerEnvironmentHoldsOnlyTheConnectionParameters(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{env: []string{"CODEXHOST_SECRET=x", "CODEXHOST_CLIENT_TOKEN=leaked", "AWS_SECRET_ACCESS_KEY=leaked"}})
	tok := h.addClient("ops")
	h.listIDs(tok) // the App Server starts on first need; listing native threads needs it

	pid := appServerPid(t, h)
	raw, err := os.ReadFile("/proc/" + pid + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if env["CODEX_HOME"] != h.codexHome {
		t.Fatalf("App Server environment lacks the whitelisted CODEX_HOME: %q", raw)
	}
	ours := map[string]string{}
	for k, v := range env {
		if strings.HasPrefix(strings.ToUpper(k), "CODEXHOST_") {
			ours[k] = v
		}
	}
	self, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	token := ours["CODEXHOST_RUNTIME_TOKEN"]
	want := map[string]string{"CODEXHOST_CLI_PATH": self, "CODEXHOST_RUNTIME_ENDPOINT": h.unix, "CODEXHOST_RUNTIME_TOKEN": token}
	if !reflect.DeepEqual(ours, want) || !regexp.MustCompile(`^cxa1\.p:native\.[0-9a-f]{64}$`).MatchString(token) || !filepath.IsAbs(ours["CODEXHOST_CLI_PATH"]) {
		t.Errorf("CODEXHOST_* variables of the App Server: %q\nwant exactly CLI_PATH=%s, RUNTIME_ENDPOINT=%s and a runtime token", ours, self, h.unix)
	}
	if v, ok := env["AWS_SECRET_ACCESS_KEY"]; ok {
		t.Errorf("AWS_SECRET_ACCESS_KEY=%s reached the App Server", v)
	}
	// They are the live connection of processes below the runtime (the tool shell's own, in
	// S000-06); outside it, where a leaked copy would be used, they are refused.
	r := run(t, h.work, []string{"HOME=" + h.cliHome, "CODEXHOST_RUNTIME_ENDPOINT=" + h.unix, "CODEXHOST_RUNTIME_TOKEN=" + token},
		"harness", "list")
	if r.code == 0 || r.failure(t).Code != "PERMISSION_DENIED" {
		t.Errorf("the App Server's token used from outside the runtime: %s", r)
	}
}

// appServerPid finds the codex process serve started.
func appServerPid(t *testing.T, h *host) string {
	t.Helper()
	codex, err := filepath.EvalSymlinks(h.codexBin)
	if err != nil {
		t.Fatal(err)
	}
	// The App Server runs under its supervisor, a child of serve.
	var found []string
	var below []int
	for _, sup := range childPids(h.serve.Process.Pid) {
		below = append(below, sup)
		below = append(below, childPids(sup)...)
	}
	for _, pid := range below {
		if exe, err := os.Readlink("/proc/" + itoa(pid) + "/exe"); err == nil && exe == codex {
			found = append(found, itoa(pid))
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one codex process below serve (pid %d), found %v", h.serve.Process.Pid, found)
	}
	return found[0]
}
