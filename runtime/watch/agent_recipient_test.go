package watch_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// An agent whose token is bound to a thread (a native tool shell, which has no
// CODEXHOST_THREAD_ID) is notified itself when it names no one: its token says exactly which
// thread it is, so nothing is guessed, and a CODEXHOST_THREAD_ID naming another thread does
// not change who it is. The token is the one the runtime gave the thread's own process.
// Scenario: S000-30
func TestWatchRecipientOfAnAgentIsItsTokensThread(t *testing.T) {
	t.Parallel()
	hs := wHarnesses()
	hs["wagent"] = config.Harness{Command: []string{"sh", "-c", `printf %s "$CODEXHOST_RUNTIME_TOKEN" > "token-$CODEXHOST_THREAD_ID"; cat`}}
	w := wNewHost(t, wHostOptions{harnesses: hs})
	th := w.gated("")
	r1 := w.startThread("wagent", "an agent", "")
	w.waitStopped(r1.id)
	r2 := w.idle()
	token, err := os.ReadFile(filepath.Join(w.gates, "token-"+r1.id))
	if err != nil || len(token) == 0 {
		t.Fatalf("the agent's token was not written: %v", err)
	}
	agent := w.Dial(string(token))
	if got := w.watching(agent, api.ThreadWatchParams{Thread: th.id}); got.Notify != r1.id {
		t.Fatalf("an agent of %s watching with no --notify: notify %q", r1.id, got.Notify)
	}
	if res := w.watch(agent, api.ThreadWatchParams{Thread: th.id, Caller: api.CallerHint{EnvThread: r2.id}}); res.Watch == nil || res.Watch.Notify != r1.id || !res.Existing {
		t.Fatalf("an agent of %s claiming CODEXHOST_THREAD_ID %s: %+v, want its first watch", r1.id, r2.id, res)
	}
}
