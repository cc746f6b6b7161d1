package runtime

import (
	"errors"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The credential a native thread's tools act with dies with the thread: once an operator has
// archived the thread, its token opens nothing, even from a process the runtime vouches for
// (this test's own, which an agent token from outside could never pass as). Another thread's
// token keeps working. This checks the wiring from archive to the tokens, which the tokens'
// own test cannot.
func TestThreadTokenDiesWhenItsThreadIsArchived(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot"}, operators: []string{"ops"}})
	bot := th.client("bot")
	cwd := t.TempDir()
	archived := delegate(t, bot, api.DelegateStartParams{Harness: "codex", Task: "first", Cwd: cwd}).Thread.ID
	kept := delegate(t, bot, api.DelegateStartParams{Harness: "codex", Task: "second", Cwd: cwd}).Thread.ID
	waitStopped(t, bot, archived)
	waitStopped(t, bot, kept)

	asArchived := th.dial(th.agents.ForThread(model.ThreadID(archived)))
	asKept := th.agents.ForThread(model.ThreadID(kept))
	if got := readThread(t, asArchived, archived); got.Thread.ID != archived {
		t.Fatalf("before the archive the thread's token reads %+v", got.Thread)
	}
	res := call[api.CatalogArchiveResult](t, th.client("ops"), api.MethodCatalogArchive,
		api.CatalogArchiveParams{Thread: archived, ConfirmNoOtherRunner: true})
	if !res.Archived {
		t.Fatalf("archive %+v", res)
	}
	// A new connection presents the token afresh: it is refused, with the runtime's code.
	_, err := api.Dial(t.Context(), th.Endpoints()[0], th.agents.ForThread(model.ThreadID(archived)))
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodePermissionDenied {
		t.Fatalf("the archived thread's token after the archive: %v", err)
	}
	if got := readThread(t, th.dial(asKept), kept); got.Thread.ID != kept {
		t.Fatalf("another thread's token reads %+v", got.Thread)
	}
}
