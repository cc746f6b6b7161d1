package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/harness"
)

// These tests run the real `codex app-server` against the loopback fake model; they skip
// (or fail with CODEXHOST_REQUIRE_CODEX=1) when Codex is not installed.
//
// They stay beside the Host: one compares the App Server's token with the process token the
// Host's agent registry (Host.agents) mints, the other starts a thread on the "shell" harness
// directly (Host.harnesses); no exported method gives either. The other native tests over a
// whole Host live in runtime/harness (native_host_test.go).

// slowTask makes the fake model stream for a minute, so the turn stays active until cancelled.
const slowTask = "[[mode:slow]] [[delay:0.2]] [[duration:60]] keep going"

// startNative starts a thread and a turn on the native harness directly (no delegation) and
// waits until Codex lists the turn, so the thread is on disk before the API reads it.
func startNative(t *testing.T, th *testHost, text string) model.ThreadID {
	t.Helper()
	ctx := context.Background()
	id, err := th.native.Start(ctx, harness.StartRequest{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := th.native.Send(ctx, id, text); err != nil {
		t.Fatal(err)
	}
	c, err := th.native.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "Codex to persist the first turn of "+string(id), func() bool {
		res, err := c.TurnsList(ctx, appserver.TurnsListParams{ThreadID: string(id), Limit: 1})
		return err == nil && len(res.Data) == 1
	})
	return id
}

// nativeState is what reading a native thread must leave as it was.
type nativeState struct {
	rollout []byte
	status  string
	loaded  []string
}

func observeNative(t *testing.T, th *testHost, id string) nativeState {
	t.Helper()
	ctx := context.Background()
	c, err := th.native.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	thr, err := c.ThreadRead(ctx, id)
	if err != nil || thr.Path == nil {
		t.Fatalf("thread/read %s: %+v %v", id, thr, err)
	}
	b, err := os.ReadFile(*thr.Path)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := c.ThreadLoadedList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(loaded.Data)
	return nativeState{rollout: b, status: thr.Status.Type, loaded: loaded.Data}
}

func (s nativeState) equal(o nativeState) bool {
	return string(s.rollout) == string(o.rollout) && s.status == o.status && slices.Equal(s.loaded, o.loaded)
}

// jsonKeys returns the keys of the object at path ("thread", "thread.lastTurn", "messages.0").
func jsonKeys(t *testing.T, raw json.RawMessage, path string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(path, ".") {
		if p == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			fmt.Sscan(p, &i)
			if i >= len(x) {
				t.Fatalf("no %s in %s", path, raw)
			}
			v = x[i]
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object in %s", path, raw)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Scenario: S000-09
func TestS000_09_AppServerEnvironmentHasOnlyTheWhitelist(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot"}, environ: []string{"CODEXHOST_SECRET=x", "CODEXHOST_THREAD_ID=y"}})
	if !slices.ContainsFunc(th.opts.Environ, func(kv string) bool { return strings.HasPrefix(kv, "CODEXHOST_CODEX_BIN=") }) {
		t.Fatal("the runtime environment should carry CODEXHOST_CODEX_BIN as well")
	}
	// A native call (listing reads the App Server's catalog) starts the App Server.
	call[api.ThreadListResult](t, th.client("bot"), api.MethodThreadList, api.ThreadListParams{})
	cl, err := th.native.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cl.Pid()))
	if err != nil {
		t.Skipf("cannot read the App Server's environment: %v", err)
	}
	// The three connection parameters, with a token that proves no thread; each thread's tool
	// shells get their own thread's instead (e2e: S000-06).
	got := codexhostVars(string(environ))
	want := map[string]string{
		"CODEXHOST_CLI_PATH":         th.opts.CLIPath,
		"CODEXHOST_RUNTIME_ENDPOINT": th.Endpoints()[0],
		"CODEXHOST_RUNTIME_TOKEN":    th.agents.ForProcess(),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("CODEXHOST_* of the App Server:\n%v\nwant\n%v", got, want)
	}
	unbound := th.dial(got["CODEXHOST_RUNTIME_TOKEN"])
	if cl := unbound.Caller(); cl.Kind != api.CallerRuntime || !cl.Unbound {
		t.Fatalf("the App Server's token is %+v, want an agent bound to no thread", cl)
	}
	if list := call[api.ThreadListResult](t, unbound, api.MethodThreadList, api.ThreadListParams{AnyCwd: true}); len(list.Threads) != 0 {
		t.Fatalf("the App Server's token lists %d threads", len(list.Threads))
	}
	callErr(t, unbound, api.MethodDelegateStart, api.DelegateStartParams{Harness: "shell", Task: "x", Cwd: t.TempDir()}, model.CodePermissionDenied)
	// The rest of the whitelist still reaches it: Codex needs its home.
	if !strings.Contains(string(environ), "CODEX_HOME="+th.codexHome+"\x00") {
		t.Fatalf("CODEX_HOME missing from the App Server environment")
	}
}

// Scenario: S000-23
// Scenario: S000-27
func TestS000_23_NativeThreadsReadOutOfBandLikeExternalOnes(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot"}})
	c := th.client("bot")
	ctx := context.Background()
	// Neither is delegated, so both read without origin.
	shell := th.harnesses["shell"]
	ext, err := shell.Start(ctx, harness.StartRequest{Cwd: t.TempDir(), Model: "mock-model"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shell.Send(ctx, ext, "hello external"); err != nil {
		t.Fatal(err)
	}
	nat := string(startNative(t, th, "hello native"))
	waitStopped(t, c, string(ext))
	waitStopped(t, c, nat)
	outside := stored(t, th.codexHome, "hello outside")

	// Same shape: the same keys at every level, in both views. Only the optional title differs:
	// Codex derives one from the first message, an external thread has none.
	for _, view := range []string{model.ViewResult, model.ViewMessages} {
		e := callRaw(t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: string(ext), View: view})
		n := callRaw(t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: nat, View: view})
		paths := []string{"", "thread.lastTurn", "result"}
		if view == model.ViewMessages {
			paths = append(paths, "messages.0", "messages.1")
		}
		for _, p := range paths {
			if ek, nk := jsonKeys(t, e, p), jsonKeys(t, n, p); !slices.Equal(ek, nk) {
				t.Errorf("%s view, %q: external keys %v, native keys %v", view, p, ek, nk)
			}
		}
		ek := slices.DeleteFunc(jsonKeys(t, e, "thread"), func(k string) bool { return k == "title" })
		nk := slices.DeleteFunc(jsonKeys(t, n, "thread"), func(k string) bool { return k == "title" })
		if !slices.Equal(ek, nk) {
			t.Errorf("%s view, thread: external keys %v, native keys %v", view, ek, nk)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	r := call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: outside, View: model.ViewMessages})
	if r.Thread.Harness != model.NativeHarness || r.Thread.Status != model.ThreadNotLoaded || r.Result == nil || r.Result.Status != model.TurnCompleted ||
		len(r.Messages) != 2 || r.Messages[0].Text != "hello outside" || r.Messages[1].Text != r.Result.Text || r.Result.Text == "" {
		t.Fatalf("out-of-band read: %+v result %+v messages %+v", r.Thread, r.Result, r.Messages)
	}

	// Read-only (S000-27): neither the thread loaded here nor the one that is not changes.
	for _, id := range []string{nat, outside} {
		before := observeNative(t, th, id)
		var results []string
		for range 2 {
			for _, p := range []api.ThreadReadParams{{Thread: id}, {Thread: id, View: model.ViewMessages}, {Thread: id, View: model.ViewMessages, Limit: 1}} {
				results = append(results, string(callRaw(t, c, api.MethodThreadRead, p)))
			}
			w := call[api.ThreadReadResult](t, c, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(5000)})
			if w.TimedOut == nil || *w.TimedOut {
				t.Fatalf("wait on idle native thread %s: %+v", id, w.TimedOut)
			}
		}
		if !slices.Equal(results[:3], results[3:]) {
			t.Fatalf("the same reads of %s differ:\n%v\n%v", id, results[:3], results[3:])
		}
		if after := observeNative(t, th, id); !after.equal(before) {
			t.Fatalf("reading %s changed it: status %s→%s loaded %v→%v rollout %d→%d bytes", id,
				before.status, after.status, before.loaded, after.loaded, len(before.rollout), len(after.rollout))
		}
		if id == outside && slices.Contains(before.loaded, outside) {
			t.Fatal("the outside thread got loaded into the host's App Server")
		}
	}
}
