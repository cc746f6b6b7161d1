package supervise

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

// nodeTurns runs the turns of node-bound supervised threads. The latest turn of each is a
// file (NodeTurn); running holds the turns this process waits for right now.
type nodeTurns struct {
	mu      sync.Mutex
	running map[model.ThreadID]bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func newNodeTurns() *nodeTurns {
	ctx, cancel := context.WithCancel(context.Background())
	return &nodeTurns{running: map[model.ThreadID]bool{}, ctx: ctx, cancel: cancel}
}

// close stops waiting for running turns: the dropped connection ends them on the node.
func (t *nodeTurns) close() {
	t.cancel()
	t.wg.Wait()
}

// LostTurn is why a turn recorded as running is reported interrupted: no process waits for it.
const LostTurn = "the runtime stopped while the node ran this turn"

// latestNodeTurn reads the latest turn of a node-bound thread. A turn recorded as running
// that this process does not wait for was cut off by a stop of the runtime (its connection
// to the node, and so the node's run, ended with it): it is reported, and recorded, as
// interrupted.
func (s *Service) latestNodeTurn(id model.ThreadID) (NodeTurn, bool) {
	s.node.mu.Lock()
	defer s.node.mu.Unlock()
	turn, ok, err := s.branches.LoadNodeTurn(id)
	if err != nil {
		fmt.Fprintf(s.opts.Log, "node turn of %s: %v\n", id, err)
		return turn, false
	}
	if ok && turn.Status == model.TurnInProgress && !s.node.running[id] {
		turn.Status, turn.Error, turn.EndedAt = model.TurnInterrupted, LostTurn, s.opts.Now()
		if err := s.branches.SaveNodeTurn(id, turn); err != nil {
			fmt.Fprintf(s.opts.Log, "node turn of %s: %v\n", id, err)
		}
	}
	return turn, ok
}

// nodeSend starts one resumed turn on the node and returns its id at once; the turn's end
// arrives as events, like any other turn's.
func (s *Service) nodeSend(sup model.Supervision, text string) (string, error) {
	src, ok := s.deps.Catalog.NodeSource(sup.Host)
	if !ok {
		// Fail closed: the binding never moves to another node or harness.
		return "", harness.NotStarted(model.Errorf(model.CodeFailedPrecondition, "pair the node again under the same name and restart the runtime",
			"the node %s of supervised thread %s is not paired any more", sup.Host, sup.Thread))
	}
	t := s.node
	uid, err := uuid.NewV7()
	if err != nil {
		return "", harness.NotStarted(err)
	}
	turn := NodeTurn{TurnID: uid.String(), Status: model.TurnInProgress, StartedAt: s.opts.Now()}
	t.mu.Lock()
	if t.running[sup.Thread] {
		t.mu.Unlock()
		return "", harness.NotStarted(model.Errorf(model.CodeThreadBusy, "wait for the running turn (`codexhost thread wait "+string(sup.Thread)+"`)",
			"thread %s has a turn running on its node", sup.Thread))
	}
	if t.ctx.Err() != nil {
		t.mu.Unlock()
		return "", harness.NotStarted(model.Errorf(model.CodeFailedPrecondition, "retry once the runtime runs again", "the runtime is shutting down"))
	}
	if err := s.branches.SaveNodeTurn(sup.Thread, turn); err != nil {
		t.mu.Unlock()
		return "", harness.NotStarted(err)
	}
	t.running[sup.Thread] = true
	t.wg.Add(1)
	t.mu.Unlock()

	s.nodeTurnEvent(sup, turn.TurnID, model.ThreadActive, model.TurnInProgress, turn.StartedAt)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.ctx, nodeTurnTimeout)
		defer cancel()
		var res api.NodeSessionResumeResult
		err := src.Invoke(ctx, api.NodeCmdSessionResume, api.NodeSessionResumeParams{ThreadID: string(sup.Canonical), Prompt: text}, &res)
		turn.EndedAt = s.opts.Now()
		switch {
		case err == nil:
			turn.Status, turn.Text = model.TurnCompleted, res.FinalText
		case t.ctx.Err() != nil:
			turn.Status, turn.Error = model.TurnInterrupted, LostTurn
		default:
			turn.Status, turn.Error = model.TurnFailed, nodeTurnError(err)
			fmt.Fprintf(s.opts.Log, "node turn of %s on %s: %v\n", sup.Thread, sup.Host, err)
		}
		t.mu.Lock()
		if err := s.branches.SaveNodeTurn(sup.Thread, turn); err != nil {
			fmt.Fprintf(s.opts.Log, "node turn of %s: %v\n", sup.Thread, err)
		}
		delete(t.running, sup.Thread)
		t.mu.Unlock()
		s.nodeTurnEvent(sup, turn.TurnID, model.ThreadIdle, turn.Status, turn.EndedAt)
	}()
	return turn.TurnID, nil
}

func nodeTurnError(err error) string {
	if me, ok := err.(*model.Error); ok {
		return string(me.Code) + ": " + me.Message
	}
	return "the node did not finish the turn"
}

// nodeTurnEvent records and announces a turn's start or end under the supervised id.
func (s *Service) nodeTurnEvent(sup model.Supervision, turnID, status, turnStatus string, at time.Time) {
	s.opts.Record(sup.Thread, harness.Event{Thread: sup.Thread, Status: status, TurnID: turnID, TurnStatus: turnStatus, At: at})
}

// nodeRead shows a node-bound thread: status and result from the turns this runtime ran,
// messages from the node thread itself (its newest page first; the cursor is the
// catalog's transcript cursor).
func (s *Service) nodeRead(ctx context.Context, sup model.Supervision, req harness.ReadRequest) (harness.Snapshot, error) {
	var snap harness.Snapshot
	snap.Info = model.ThreadInfo{Status: model.ThreadIdle, Cwd: sup.Cwd, CreatedAt: sup.CreatedAt, UpdatedAt: sup.UpdatedAt}
	if hist, err := s.branches.History(sup.Thread); err == nil {
		snap.Info.Title = hist.Title
	}
	if rec, err := s.deps.Store.Thread(sup.Thread); err == nil {
		snap.Info.UpdatedAt = rec.UpdatedAt
	}
	if turn, ok := s.latestNodeTurn(sup.Thread); ok {
		started := turn.StartedAt
		snap.Info.LastTurn = &model.TurnSummary{ID: turn.TurnID, Status: turn.Status, Error: turn.Error, StartedAt: &started}
		if turn.Status == model.TurnInProgress {
			snap.Info.Status = model.ThreadActive
		} else {
			ended := turn.EndedAt
			snap.Info.LastTurn.CompletedAt = &ended
			snap.Result = &model.Result{TurnID: turn.TurnID, Status: turn.Status, Text: turn.Text, Error: turn.Error}
		}
	}
	if !req.Messages {
		return snap, nil
	}
	page, err := s.deps.Catalog.Transcript(ctx, api.CatalogTranscriptParams{Thread: string(sup.Canonical), Host: sup.Host, Cursor: req.Cursor})
	if err != nil {
		return harness.Snapshot{}, err
	}
	for _, turn := range page.Turns {
		snap.Messages = append(snap.Messages, turn.Messages...)
	}
	snap.NextCursor = page.OlderCursor
	return snap, nil
}
