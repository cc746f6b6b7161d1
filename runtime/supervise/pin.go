package supervise

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/store"
)

// pinTimeout bounds one pin: a handful of App Server calls.
const pinTimeout = 60 * time.Second

// Conn is the connection a branch's canonical thread lives on: its physical process must
// stay the same from the pin to the commit.
type Conn interface {
	catalog.Conn
	Done() <-chan struct{}
}

// Pin creates the canonical thread of a pending branch on conn and commits the binding:
// an ephemeral fork of the source without turns pins its snapshot and lets Codex choose the
// model pair (no override is sent); the probe is unsubscribed; the canonical thread starts
// with exactly that pair; the bounded history is injected; then the binding is committed
// durably. A failure before the commit leaves the branch pending, so a later send retries.
// The source is never resumed.
func (b *Branches) Pin(ctx context.Context, conn Conn, sup model.Supervision) (model.Supervision, error) {
	if sup.State != model.SupervisionPending {
		return sup, nil
	}
	ctx, cancel := context.WithTimeout(ctx, pinTimeout)
	defer cancel()
	done := b.markInitialising(sup.Host, sup.Source)
	defer done()
	retry := func(format string, args ...any) error {
		return model.Errorf(model.CodeFailedPrecondition, "the supervised thread is still pending: send again to retry; the runtime's log has the details",
			format, args...)
	}
	lost := func(err error) error {
		fmt.Fprintf(b.log, "supervise %s: %v\n", sup.Thread, err)
		if catalog.IsHostFailure(err) {
			return model.Errorf(model.CodeAppServerUnavailable, "the supervised thread is still pending: send again once the App Server runs",
				"the supervision connection to the Codex App Server was lost")
		}
		return nil
	}
	pid := conn.Pid()
	same := func() bool {
		select {
		case <-conn.Done():
			return false
		default:
		}
		return conn.Pid() == pid
	}
	hist, err := b.History(sup.Thread)
	if err != nil {
		return sup, err
	}

	calls := appserver.On(conn)
	fork, err := calls.ThreadFork(ctx, appserver.ThreadForkParams{ThreadID: string(sup.Source), Ephemeral: true, ExcludeTurns: true})
	if err != nil {
		if e := lost(err); e != nil {
			return sup, e
		}
		return sup, retry("the source thread %s could not be pinned (it may have been archived or removed)", sup.Source)
	}
	probe := fork.Thread.ID
	if probe == "" || fork.Model == "" || fork.ModelProvider == "" {
		return sup, retry("pinning source thread %s returned no thread or no model", sup.Source)
	}
	unsub, err := calls.ThreadUnsubscribe(ctx, probe)
	if err != nil {
		if e := lost(err); e != nil {
			return sup, e
		}
		return sup, retry("the snapshot of source thread %s could not be released", sup.Source)
	}
	switch unsub.Status {
	case "unsubscribed", "notSubscribed", "notLoaded":
	default:
		return sup, retry("releasing the snapshot of source thread %s answered %q", sup.Source, unsub.Status)
	}
	if !same() {
		return sup, model.Errorf(model.CodeAppServerUnavailable, "the supervised thread is still pending: send again",
			"the supervision connection changed while the source was pinned")
	}

	cwd := fork.Cwd
	if cwd == "" {
		cwd = sup.Cwd
	}
	start, err := calls.ThreadStart(ctx, appserver.ThreadStartParams{Cwd: cwd, Model: fork.Model, ModelProvider: fork.ModelProvider, ThreadSource: "appServer"})
	if err != nil {
		if e := lost(err); e != nil {
			return sup, e
		}
		return sup, retry("the canonical thread of supervised thread %s could not be started", sup.Thread)
	}
	canonical := start.Thread.ID
	if canonical == "" || start.Model != fork.Model || start.ModelProvider != fork.ModelProvider {
		fmt.Fprintf(b.log, "supervise %s: asked for %s/%s, started %q with %s/%s\n", sup.Thread, fork.ModelProvider, fork.Model, canonical, start.ModelProvider, start.Model)
		return sup, retry("Codex did not start the canonical thread with the model it chose for the branch")
	}
	if len(hist.Messages) > 0 {
		items := make([]appserver.ResponseItem, 0, len(hist.Messages))
		for _, m := range hist.Messages {
			if m.Role == model.RoleAssistant {
				items = append(items, appserver.AssistantMessageItem(m.Text))
			} else {
				items = append(items, appserver.UserMessageItem(m.Text))
			}
		}
		if err := calls.ThreadInjectItems(ctx, canonical, items); err != nil {
			if e := lost(err); e != nil {
				return sup, e
			}
			return sup, retry("the history of supervised thread %s could not be given to its canonical thread", sup.Thread)
		}
	}
	nameCanonical(ctx, calls, canonical, hist.Title)
	if !same() {
		return sup, model.Errorf(model.CodeAppServerUnavailable, "the supervised thread is still pending: send again",
			"the supervision connection changed while the canonical thread was prepared")
	}
	bound, err := b.st.BindSupervision(sup.Thread, model.ThreadID(canonical), fork.Model, fork.ModelProvider, b.now())
	if errors.Is(err, store.ErrRebind) {
		return sup, model.Errorf(model.CodeFailedPrecondition, "read the supervised thread again; its binding is never replaced",
			"supervised thread %s was bound meanwhile", sup.Thread)
	}
	if err != nil {
		return sup, err
	}
	return bound, nil
}

// nameCanonical gives the canonical thread its branch title in Codex itself: the catalog's
// title search and every other Codex client read Codex's name, not codexhost's records, so
// an unnamed branch listed under its source's title would never match a search for it. A
// refusal only leaves it unnamed, as a thread nobody named.
func nameCanonical(ctx context.Context, calls appserver.Calls, canonical, sourceTitle string) {
	if title := model.BranchTitle(sourceTitle); title != "" {
		_ = calls.ThreadSetName(ctx, canonical, title)
	}
}
