package runtime

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Who may touch which thread: a client lists only its own principal's threads (its own and
// those delegated from them) unless it holds operator.read; sends to and cancels another
// principal's thread only with operator.write; and a session codexhost did not start only
// with operator.write and allowWriteControls, being pointed at continue otherwise. Read and
// wait of any id stay open to everyone.
func TestThreadPrincipalRules(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot", "other"}, grants: map[string]config.Grant{
		"reader":  {Scopes: []string{config.ScopeRead}},
		"writer":  {Scopes: []string{config.ScopeWrite}},
		"control": {Scopes: []string{config.ScopeWrite}, AllowWriteControls: true},
	}})
	cwd := t.TempDir()
	bot, other, agent := th.client("bot"), th.client("other"), th.runtimeClient()
	own := delegate(t, bot, api.DelegateStartParams{Harness: "shell", Task: "bot's", Cwd: cwd}).Thread.ID
	child := delegate(t, agent, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: own}, Harness: "shell", Task: "bot's child", Cwd: cwd}).Thread.ID
	theirs := delegate(t, other, api.DelegateStartParams{Harness: "shell", Task: "other's", Cwd: cwd}).Thread.ID
	for _, id := range []string{own, child, theirs} {
		waitStopped(t, agent, id)
	}
	foreign, _ := codexfixture.StoredThread(t, th.codexHome, "", "the user's own session") // not started by codexhost
	missing := "019a0000-0000-7000-8000-00000000f00d"                                      // in no harness

	listed := func(c *api.Client) []string {
		ids, _ := listAll(t, c, api.ThreadListParams{AnyCwd: true})
		slices.Sort(ids)
		return ids
	}
	mine := []string{own, child}
	slices.Sort(mine)
	if got := listed(bot); !slices.Equal(got, mine) {
		t.Errorf("bot lists %v, want its own principal's %v", got, mine)
	}
	if got := listed(th.client("reader")); !slices.Contains(got, theirs) || !slices.Contains(got, own) {
		t.Errorf("operator.read lists %v, want every thread", got)
	}
	// The lineage walk lists children as thread.list does, so it reveals nothing more.
	lin := call[api.ThreadLineageResult](t, other, api.MethodThreadLineage, api.ThreadLineageParams{Thread: own})
	if len(lin.Nodes) != 1 {
		t.Errorf("another client's lineage of bot's thread shows %d threads, want the one it named", len(lin.Nodes))
	}
	// Observing stays open: a given id is the authorisation to read it.
	readThread(t, other, own)

	send := func(c *api.Client, id string) error {
		return c.Call(context.Background(), api.MethodThreadSend, api.ThreadSendParams{Thread: id, Message: "more"}, nil)
	}
	cancel := func(c *api.Client, id string) error {
		return c.Call(context.Background(), api.MethodThreadCancel, api.ThreadCancelParams{Thread: id}, nil)
	}
	denied := func(what string, err error, hint string) {
		t.Helper()
		if !model.IsCode(err, model.CodePermissionDenied) || !strings.Contains(model.AsError(err).Hint, hint) {
			t.Errorf("%s: want PERMISSION_DENIED naming %q, got %v", what, hint, err)
		}
	}
	admitted := func(what string, err error) {
		t.Helper()
		if model.IsCode(err, model.CodePermissionDenied) {
			t.Errorf("%s: refused: %v", what, err)
		}
	}
	admitted("bot sends to its own thread", send(bot, own))
	waitStopped(t, agent, own)
	admitted("bot sends to a thread delegated from its own", send(bot, child))
	waitStopped(t, agent, child)
	admitted("bot cancels its own thread", cancel(bot, own))
	denied("bot sends to another client's thread", send(bot, theirs), config.ScopeWrite)
	denied("bot cancels another client's thread", cancel(bot, theirs), config.ScopeWrite)
	denied("operator.read sends to another client's thread", send(th.client("reader"), theirs), config.ScopeWrite)
	admitted("operator.write sends to another client's thread", send(th.client("writer"), theirs))
	waitStopped(t, agent, theirs)
	admitted("an agent sends to a thread codexhost runs", send(agent, theirs))

	denied("bot sends to a session codexhost did not start", send(bot, foreign), "codexhost continue "+foreign)
	denied("bot cancels a session codexhost did not start", cancel(bot, foreign), "codexhost continue "+foreign)
	denied("operator.write without write controls", send(th.client("writer"), foreign), "codexhost continue")
	denied("an agent sends to a session codexhost did not start", send(agent, foreign), "codexhost continue")
	if err := cancel(th.client("control"), foreign); model.IsCode(err, model.CodePermissionDenied) {
		t.Errorf("write controls pass the policy: %v", err)
	}
	// An id no harness has is not found for everyone, not a refusal pointing at continue.
	for _, c := range []*api.Client{bot, agent, th.client("writer")} {
		if err := send(c, missing); !model.IsCode(err, model.CodeThreadNotFound) {
			t.Errorf("send to an id no harness has: %v, want THREAD_NOT_FOUND", err)
		}
		if err := cancel(c, missing); !model.IsCode(err, model.CodeThreadNotFound) {
			t.Errorf("cancel of an id no harness has: %v, want THREAD_NOT_FOUND", err)
		}
	}
}

// The event stream follows the same rule as thread list: a client without operator.read
// hears only of its own principal's threads (and its own event log), so events never reveal
// ids it was never given; an operator.read client hears of every thread.
func TestEventStreamShowsAClientOnlyItsOwnThreads(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot", "other"}, grants: map[string]config.Grant{
		"reader": {Scopes: []string{config.ScopeRead}},
	}})
	cwd := t.TempDir()
	bot, other, reader := th.client("bot"), th.client("other"), th.client("reader")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := func(c *api.Client) func() map[string]bool {
		events, err := c.Events(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		seen := map[string]bool{}
		go func() {
			for ev := range events {
				mu.Lock()
				seen[ev.Thread] = true
				mu.Unlock()
			}
		}()
		return func() map[string]bool {
			mu.Lock()
			defer mu.Unlock()
			return maps.Clone(seen)
		}
	}
	botHeard, readerHeard := heard(bot), heard(reader)
	theirs := delegate(t, other, api.DelegateStartParams{Harness: "shell", Task: "other's", Cwd: cwd}).Thread.ID
	own := delegate(t, bot, api.DelegateStartParams{Harness: "shell", Task: "bot's", Cwd: cwd}).Thread.ID
	waitStopped(t, reader, theirs)
	waitStopped(t, reader, own)
	eventually(t, "events of both threads for operator.read and of its own for bot", func() bool {
		r, b := readerHeard(), botHeard()
		return r[theirs] && r[own] && b[own]
	})
	if botHeard()[theirs] {
		t.Fatalf("bot heard of another client's thread %s", theirs)
	}
}
