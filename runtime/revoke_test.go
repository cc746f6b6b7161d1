package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Removing a client from config.toml, or replacing its token, ends what its open
// connections may do: their next request is refused and the connection closed, and an
// idle subscriber is dropped at its next event instead of hearing on.
func TestRevokedClientsOpenConnectionsEnd(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"gone", "rotated"},
		grants: map[string]config.Grant{"watcher": {Scopes: []string{config.ScopeRead}}}})
	gone, rotated, watcher := th.dial(th.tokens["gone"]), th.dial(th.tokens["rotated"]), th.dial(th.tokens["watcher"])
	for _, c := range []*api.Client{gone, rotated, watcher} {
		call[api.HarnessListResult](t, c, api.MethodHarnessList, struct{}{})
	}
	events, err := watcher.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var fresh string
	if _, err := config.Update(th.home, func(cfg *config.Config) error {
		delete(cfg.Clients, "gone")
		delete(cfg.Clients, "watcher")
		delete(cfg.Clients, "rotated")
		var aerr error
		fresh, aerr = cfg.AddClient("rotated", config.Grant{})
		return aerr
	}); err != nil {
		t.Fatal(err)
	}

	for name, c := range map[string]*api.Client{"gone": gone, "rotated": rotated} {
		me := callErr(t, c, api.MethodDelegateStart, api.DelegateStartParams{Harness: "shell", Task: "after revocation"}, model.CodePermissionDenied)
		if me.Details["client"] != name {
			t.Errorf("%s: refusal names %v", name, me.Details)
		}
	}
	now := th.dial(fresh)
	res := delegate(t, now, api.DelegateStartParams{Harness: "shell", Task: "with the new token"})
	waitStopped(t, now, string(res.Thread.ID))
	deadline := time.After(testWait)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Thread == string(res.Thread.ID) {
				t.Fatalf("a revoked subscriber still hears events: %+v", ev)
			}
		case <-deadline:
			t.Fatal("the revoked subscriber's connection stayed open")
		}
	}
}
