package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Supervised threads bound to a paired node's thread (binding codex-cli-node-session). Each
// send is one request to the node, which runs `codex exec resume` on that exact thread and
// answers with the final text: no App Server stream, approvals or tool events cross the
// wire. The transcript is the node thread's own, read page by page through the node.

// nodeTurnTimeout bounds one resumed turn as the gateway waits for it (the node bounds it too).
const nodeTurnTimeout = 35 * time.Minute

// nodeRun is the latest turn of a node-bound supervised thread, as this runtime saw it.
// It lives in memory: after a restart the thread reads idle with no result.
type nodeRun struct {
	turnID    string
	status    string // model.Turn*
	text      string
	err       string
	startedAt time.Time
	endedAt   time.Time
}

// nodeTurns runs the turns of node-bound supervised threads.
type nodeTurns struct {
	mu     sync.Mutex
	runs   map[model.ThreadID]*nodeRun
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newNodeTurns() *nodeTurns {
	ctx, cancel := context.WithCancel(context.Background())
	return &nodeTurns{runs: map[model.ThreadID]*nodeRun{}, ctx: ctx, cancel: cancel}
}

// close stops waiting for running turns (the node finishes them on its own).
func (t *nodeTurns) close() {
	t.cancel()
	t.wg.Wait()
}

func (t *nodeTurns) latest(id model.ThreadID) (nodeRun, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.runs[id]
	if r == nil {
		return nodeRun{}, false
	}
	return *r, true
}

// authorizeNodeSend keeps the owner/admin check on every turn of a node-bound thread: the
// caller must be allowed to continue that node's threads now, not only when it was bound.
func (h *Host) authorizeNodeSend(caller api.Caller, id model.ThreadID) error {
	sup, ok, err := h.supervision.sup.Supervision(id)
	if err != nil || !ok || sup.Binding != model.BindingNodeSession {
		return err
	}
	return h.authorizeCatalog(caller, api.MethodCatalogContinue, sup.Host)
}

// nodeSend starts one resumed turn on the node and returns its id at once; the turn's end
// arrives as events, like any other turn's.
func (h *Host) nodeSend(sup model.Supervision, text string) (string, error) {
	src, ok := h.catalog.NodeSource(sup.Host)
	if !ok {
		// Fail closed: the binding never moves to another node or harness.
		return "", harness.NotStarted(model.Errorf(model.CodeFailedPrecondition, "pair the node again under the same name and restart the runtime",
			"the node %s of supervised thread %s is not paired any more", sup.Host, sup.Thread))
	}
	t := h.supervision.node
	uid, err := uuid.NewV7()
	if err != nil {
		return "", harness.NotStarted(err)
	}
	now := h.opts.Now()
	run := &nodeRun{turnID: uid.String(), status: model.TurnInProgress, startedAt: now}
	t.mu.Lock()
	if r := t.runs[sup.Thread]; r != nil && r.status == model.TurnInProgress {
		t.mu.Unlock()
		return "", harness.NotStarted(model.Errorf(model.CodeThreadBusy, "wait for the running turn (`codexhost thread wait "+string(sup.Thread)+"`)",
			"thread %s has a turn running on its node", sup.Thread))
	}
	if t.ctx.Err() != nil {
		t.mu.Unlock()
		return "", harness.NotStarted(model.Errorf(model.CodeFailedPrecondition, "retry once the runtime runs again", "the runtime is shutting down"))
	}
	t.runs[sup.Thread] = run
	t.wg.Add(1)
	t.mu.Unlock()

	h.nodeTurnEvent(sup, run.turnID, model.ThreadActive, model.TurnInProgress, now)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.ctx, nodeTurnTimeout)
		defer cancel()
		var res api.NodeSessionResumeResult
		err := src.Invoke(ctx, api.NodeCmdSessionResume, api.NodeSessionResumeParams{ThreadID: string(sup.Canonical), Prompt: text}, &res)
		end := h.opts.Now()
		t.mu.Lock()
		run.endedAt = end
		if err != nil {
			run.status, run.err = model.TurnFailed, nodeTurnError(err)
			fmt.Fprintf(h.opts.Log, "node turn of %s on %s: %v\n", sup.Thread, sup.Host, err)
		} else {
			run.status, run.text = model.TurnCompleted, res.FinalText
		}
		status := run.status
		t.mu.Unlock()
		h.nodeTurnEvent(sup, run.turnID, model.ThreadIdle, status, end)
	}()
	return run.turnID, nil
}

func nodeTurnError(err error) string {
	if me, ok := err.(*model.Error); ok {
		return string(me.Code) + ": " + me.Message
	}
	return "the node did not finish the turn"
}

// nodeTurnEvent records and announces a turn's start or end under the supervised id.
func (h *Host) nodeTurnEvent(sup model.Supervision, turnID, status, turnStatus string, at time.Time) {
	if rec, err := h.store.Thread(sup.Thread); err == nil {
		rec.UpdatedAt, rec.RecencyAt = at, at
		if err := h.store.PutThread(rec); err != nil {
			fmt.Fprintf(h.opts.Log, "thread record of %s: %v\n", sup.Thread, err)
		}
	}
	if h.watch != nil {
		h.watch.OnEvent(sup.Thread, status, turnStatus)
	}
	h.publish(api.Event{Type: api.EventThreadStatus, Thread: string(sup.Thread), Status: status, TurnID: turnID, TurnStatus: turnStatus})
}

// nodeRead shows a node-bound thread: status and result from the turns this runtime ran,
// messages from the node thread itself (its newest page first; the cursor is the
// catalog's transcript cursor).
func (h *Host) nodeRead(ctx context.Context, sup model.Supervision, req harness.ReadRequest) (harness.Snapshot, error) {
	var snap harness.Snapshot
	snap.Info = model.ThreadInfo{Status: model.ThreadIdle, Cwd: sup.Cwd, CreatedAt: sup.CreatedAt, UpdatedAt: sup.UpdatedAt}
	if hist, err := h.supervision.sup.History(sup.Thread); err == nil {
		snap.Info.Title = hist.Title
	}
	if rec, err := h.store.Thread(sup.Thread); err == nil {
		snap.Info.UpdatedAt = rec.UpdatedAt
	}
	if run, ok := h.supervision.node.latest(sup.Thread); ok {
		started := run.startedAt
		snap.Info.LastTurn = &model.TurnSummary{ID: run.turnID, Status: run.status, StartedAt: &started}
		if run.status == model.TurnInProgress {
			snap.Info.Status = model.ThreadActive
		} else {
			ended := run.endedAt
			snap.Info.LastTurn.CompletedAt = &ended
			snap.Result = &model.Result{TurnID: run.turnID, Status: run.status, Text: run.text, Error: run.err}
		}
	}
	if !req.Messages {
		return snap, nil
	}
	page, err := h.catalog.Transcript(ctx, api.CatalogTranscriptParams{Thread: string(sup.Canonical), Host: sup.Host, Cursor: req.Cursor})
	if err != nil {
		return harness.Snapshot{}, err
	}
	for _, turn := range page.Turns {
		snap.Messages = append(snap.Messages, turn.Messages...)
	}
	snap.NextCursor = page.OlderCursor
	return snap, nil
}
