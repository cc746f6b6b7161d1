package runtime

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Callers of the principal rows, besides those of the permission table.
const (
	asOwner      = "owner"       // the client whose thread is named
	asOwnerAgent = "owner-agent" // an agent of a thread in the owner's tree
	asOtherAgent = "other-agent" // an agent of a thread of another client (asBot's)
)

var principalCallers = []string{asBot, asReader, asWriter, asAdmin, asOperator, asOwner, asOwnerAgent, asOtherAgent}

// Naming another principal's thread — as the parent of a delegation, the target of a
// watch's notification, or the thread sent to or cancelled — is one decision: the thread's
// own principal (its client, or an agent of its tree) and clients with operator.write. Every
// row is tried by every caller; a refusal is PERMISSION_DENIED and leaves the thread as it was.
func TestRoutingTablePrincipalRows(t *testing.T) {
	t.Parallel()
	th, _ := newPermissionHost(t)
	cfg, err := config.Load(th.home)
	if err != nil {
		t.Fatal(err)
	}
	ownerToken, err := cfg.AddClient(asOwner, config.Grant{})
	if err != nil {
		t.Fatal(err)
	}
	if err := config.Save(th.home, cfg); err != nil {
		t.Fatal(err)
	}
	th.tokens[asOwner] = ownerToken
	cwd := t.TempDir()
	owner := th.dial(ownerToken)
	target := delegate(t, owner, api.DelegateStartParams{Harness: "shell", Task: "the owner's thread", Cwd: cwd}).Thread.ID
	ownerChild := delegate(t, owner, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: target}, Harness: "shell", Task: "in the owner's tree", Cwd: cwd}).Thread.ID
	botThread := delegate(t, th.as(asBot), api.DelegateStartParams{Harness: "shell", Task: "the bot's thread", Cwd: cwd}).Thread.ID
	waitStopped(t, owner, target)
	waitStopped(t, owner, ownerChild)
	th.tokens[asOwnerAgent] = th.agents.ForThread(model.ThreadID(ownerChild))
	th.tokens[asOtherAgent] = th.agents.ForThread(model.ThreadID(botThread))

	own := []string{asOwner, asOwnerAgent, asWriter, asAdmin, asOperator}
	rows := []permissionCase{
		{api.MethodDelegateStart, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: target}, Harness: "shell", Task: "child", Cwd: os.TempDir()}, own},
		{api.MethodDelegateStart, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: target}, Harness: "shell", Task: "env child", Cwd: os.TempDir()},
			// An agent's own thread is its token's: the claim is ignored, not refused.
			append(slices.Clone(own), asOtherAgent)},
		{api.MethodDelegateStart, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: target}, Harness: "shell", Task: "watched", Cwd: os.TempDir(), Watch: true}, own},
		{api.MethodThreadWatch, api.ThreadWatchParams{Thread: botThread, Notify: target}, own},
		{api.MethodThreadSend, api.ThreadSendParams{Thread: target, Message: "hi"}, own},
		{api.MethodThreadCancel, api.ThreadCancelParams{Thread: target}, own},
	}
	for _, r := range rows {
		for _, who := range principalCallers {
			c := th.dial(th.tokens[who])
			if who == asReader || who == asWriter || who == asAdmin || who == asBot {
				c = th.as(who)
			}
			err := c.Call(context.Background(), r.method, r.params, nil)
			refused := model.IsCode(err, model.CodePermissionDenied)
			if want := !slices.Contains(r.allowed, who); refused != want {
				t.Errorf("%s %+v by %s: refused=%v, want %v (%v)", r.method, r.params, who, refused, want, err)
			}
		}
	}
	// The other agent's delegation that claimed the owner's thread became its own child.
	list := call[api.ThreadListResult](t, th.dial(th.tokens[asOtherAgent]), api.MethodThreadList, api.ThreadListParams{AnyCwd: true})
	for _, got := range list.Threads {
		if p, _, _ := th.threads.PrincipalOf(model.ThreadID(got.ID)); p != model.ClientRecipientPrefix+asBot {
			t.Errorf("the bot's agent lists %s of %s", got.ID, p)
		}
	}
	if len(list.Threads) < 2 {
		t.Errorf("the bot's agent lists %d threads, want its own and its child", len(list.Threads))
	}
}
