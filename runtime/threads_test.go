package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// This test stays beside the Host: it starts a thread on the "shell" harness directly
// (Host.harnesses), which no exported method gives. The other thread tests live in
// runtime/threads.

// Scenario: S000-04
func TestS000_04_ExternalThreadNotMadeByDelegationHasEmptyRefs(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c := th.client("bot")
	// Started on the harness directly, as a thread made by other means than delegate.start.
	hs := th.harnesses["shell"]
	ctx := context.Background()
	id, err := hs.Start(ctx, harness.StartRequest{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hs.Send(ctx, id, "hello"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []api.ThreadReadParams{{Thread: string(id)}, {Thread: string(id), View: model.ViewMessages}} {
		raw := callRaw(t, c, api.MethodThreadRead, p)
		var r struct {
			Thread map[string]json.RawMessage `json:"thread"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if got := string(r.Thread["refs"]); got != "[]" {
			t.Fatalf("refs of a thread not made by delegation: %q in %s", got, raw)
		}
		if _, ok := r.Thread["origin"]; ok {
			t.Fatalf("origin on a thread not made by delegation: %s", raw)
		}
	}
	waitStopped(t, c, string(id))
}
