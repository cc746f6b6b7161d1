package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A slow native turn streams: the client that started it hears its text in several
// thread.delta pieces before the turn completes, the pieces join to the message thread.read
// reports, and nothing of them is in the store.
func TestNativeTurnStreamsToItsClient(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"a"}})
	c := th.client("a")
	events, err := c.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := delegate(t, c, api.DelegateStartParams{Harness: model.NativeHarness, Cwd: t.TempDir(),
		Task: "[[mode:slow]] [[delay:0.15]] [[duration:1.2]] stream it"})
	id := string(res.Thread.ID)

	streamedBeforeEnd(t, c, events, id)
	th.close()
	for k, v := range dumpStore(t, th.home) {
		if strings.Contains(v, "tick1 ") || strings.Contains(k, "tick1 ") {
			t.Errorf("the store holds streamed text under %q", k)
		}
	}
}

// streamedBeforeEnd collects thread's deltas up to its turn's end, checks that they came in
// several pieces and join to the final message, and returns how many pieces came.
func streamedBeforeEnd(t *testing.T, c *api.Client, events <-chan api.Event, id string) int {
	t.Helper()
	var streamed strings.Builder
	pieces := 0
	deadline := time.After(testWait)
	for done := false; !done; {
		select {
		case ev := <-events:
			if ev.Thread != id {
				continue
			}
			switch {
			case ev.Type == api.EventThreadDelta:
				pieces++
				streamed.WriteString(ev.Delta.Text)
			case ev.Type == api.EventThreadStatus && ev.TurnStatus != "" && ev.TurnStatus != model.TurnInProgress:
				done = true
			}
		case <-deadline:
			t.Fatalf("the turn did not end; %d pieces so far", pieces)
		}
	}
	if pieces < 3 {
		t.Fatalf("the reply reached the client in %d pieces before the turn ended, want several", pieces)
	}
	read := readThread(t, c, id)
	if read.Result == nil || read.Result.Text != streamed.String() {
		t.Fatalf("final text %+v, streamed %q", read.Result, streamed.String())
	}
	return pieces
}

// A supervised thread (a continued session) streams under the id the user knows, as its
// other events do.
func TestSupervisedTurnStreamsUnderItsID(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, operators: []string{"ops"}})
	c := th.client("ops")
	src, _ := codexfixture.StoredThread(t, th.codexHome, "", "hello")
	sid := call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}).Thread.ID
	events, err := c.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid,
		Message: "[[mode:slow]] [[delay:0.15]] [[duration:1.2]] go on"})
	streamedBeforeEnd(t, c, events, string(sid))
}
