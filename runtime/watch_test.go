package runtime

import (
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// An agent whose token is bound to a thread (a native tool shell, which has no
// CODEXHOST_THREAD_ID) is notified itself when it names no one: its token says exactly which
// thread it is, so nothing is guessed, and a CODEXHOST_THREAD_ID naming another thread does
// not change who it is.
// Scenario: S000-30
func TestWatchRecipientOfAnAgentIsItsTokensThread(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	th := w.gated("")
	r1, r2 := w.idle(), w.idle()
	agent := w.shared(w.agents.ForThread(model.ThreadID(r1.id)))
	if got := w.watching(agent, api.ThreadWatchParams{Thread: th.id}); got.Notify != r1.id {
		t.Fatalf("an agent of %s watching with no --notify: notify %q", r1.id, got.Notify)
	}
	if res := w.watch(agent, api.ThreadWatchParams{Thread: th.id, Caller: api.CallerHint{EnvThread: r2.id}}); res.Watch == nil || res.Watch.Notify != r1.id || !res.Existing {
		t.Fatalf("an agent of %s claiming CODEXHOST_THREAD_ID %s: %+v, want its first watch", r1.id, r2.id, res)
	}
}
