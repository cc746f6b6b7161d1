package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/marker"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/runtime/threads"
	"github.com/codexhost/codexhost/store"
)

// Marker blocks: after a turn ends completed, the runtime reads the turn's assistant output,
// and the marker engine runs its blocks and reports back through the watch delivery path.

const (
	principalOperator  = "operator"
	maxOutputPages     = 5 // pages of 100 messages read back for one turn's output
	markerMessagePrefx = "marker-"
)

// startMarkers opens the marker engine and resumes the runs the last runtime left.
func (h *Host) startMarkers() error {
	cfg := h.config().Markers
	h.markers = marker.New(marker.Options{
		Threads: markerThreads{h},
		Store:   h.store,
		Deliver: h.deliverMarkerReport,
		Now:     h.opts.Now,
		Log:     h.opts.Log,
		Workers: cfg.WorkerSlots(),
		// Read rounds are shared round robin across principals, each bounded to its share.
		PrincipalWorkers: cfg.PrincipalSlots(),
		Quota:            func() int { return h.config().Markers.ActiveQuota() },
		// Names of task-create blocks are content: next to the queued messages, not in records.
		NamesDir: filepath.Join(h.opts.Home, "marker-names"),
		ParentOf: func(id model.ThreadID) (model.ThreadID, error) {
			o, err := h.store.Origin(id)
			return o.ParentThread, err
		},
		TurnOutput: func(ctx context.Context, author model.ThreadID, turn string) (string, error) {
			ctx, cancel := context.WithTimeout(ctx, readTimeoutMarkers)
			defer cancel()
			return h.turnOutput(ctx, author, turn)
		},
		Fault: faultPoint,
	})
	if err := h.markers.Resume(); err != nil {
		return err
	}
	return h.recoverMarkerTurns()
}

func (h *Host) closeMarkers() {
	if h.markers != nil {
		h.markers.Close()
	}
}

// markersEvent is the hook of onHarnessEvent: it wakes polls and waits, abandons the runs of
// an interrupted author, and runs the blocks of a completed turn.
func (h *Host) markersEvent(ev harness.Event) {
	if h.markers == nil || ev.Progress {
		return
	}
	h.markers.OnEvent(ev.Thread, ev.TurnStatus)
	if ev.TurnID == "" || ev.TurnStatus == "" {
		return
	}
	// The turn in flight is recorded here, in the event's order, before anything runs: a
	// crash from now on leaves it for the next start (markers_recover.go).
	switch ev.TurnStatus {
	case model.TurnInProgress, model.TurnCompleted:
		t := model.MarkerTurn{Author: ev.Thread, Turn: ev.TurnID, Completed: ev.TurnStatus == model.TurnCompleted, UpdatedAt: h.opts.Now()}
		if err := h.store.PutMarkerTurn(t); err != nil {
			fmt.Fprintf(h.opts.Log, "marker turn %s of %s: %v\n", ev.TurnID, ev.Thread, err)
		}
	default:
		h.settleMarkerTurn(ev.Thread, ev.TurnID) // its blocks never run
	}
	if ev.TurnStatus == model.TurnCompleted {
		markerFault(faultMarkerTurnCompleted)
		go h.markersTurnCompleted(ev.Thread, ev.TurnID)
	}
}

// markersAuthorCancelled abandons an author's runs when `thread cancel` names it.
func (h *Host) markersAuthorCancelled(id model.ThreadID) {
	if h.markers != nil {
		h.markers.AuthorCancelled(id)
	}
}

func (h *Host) markersTurnCompleted(author model.ThreadID, turn string) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeoutMarkers)
	defer cancel()
	if rec, err := h.store.Thread(author); err == nil && rec.Goal && !h.isHandoffTask(author) {
		h.settleMarkerTurn(author, turn)
		return // goal threads never parse blocks; a handoff task's are read to be refused
	}
	out, err := h.turnOutput(ctx, author, turn)
	if err != nil {
		// The turn stays in flight in the store: the next start reads it again.
		fmt.Fprintf(h.opts.Log, "marker blocks of %s turn %s: read output: %v\n", author, turn, err)
		return
	}
	if !h.markers.TurnCompleted(author, turn, out) {
		h.settleMarkerTurn(author, turn) // no blocks: nothing to plan
	}
}

func (h *Host) settleMarkerTurn(author model.ThreadID, turn string) {
	if err := h.store.SettleMarkerTurn(author, turn); err != nil {
		fmt.Fprintf(h.opts.Log, "marker turn %s of %s: %v\n", turn, author, err)
	}
}

// turnOutput joins the assistant messages of one turn: the App Server's items of a native
// thread, the transcript of an external one.
func (h *Host) turnOutput(ctx context.Context, id model.ThreadID, turn string) (string, error) {
	hs, err := h.threads.Harness(ctx, id)
	if err != nil {
		return "", err
	}
	var pages [][]string
	cursor := ""
	for range maxOutputPages {
		snap, err := hs.Read(ctx, id, harness.ReadRequest{Messages: true, Limit: model.MaxPageLimit, Cursor: cursor})
		if err != nil {
			return "", err
		}
		var texts []string
		older := snap.NextCursor != ""
		for _, m := range snap.Messages {
			if m.TurnID != turn {
				older = false // the page reaches before the turn: no older page is needed
				continue
			}
			if m.Role == model.RoleAssistant {
				texts = append(texts, m.Text)
			}
		}
		pages = append([][]string{texts}, pages...)
		if !older || len(snap.Messages) == 0 {
			break
		}
		cursor = snap.NextCursor
	}
	var all []string
	for _, p := range pages {
		all = append(all, p...)
	}
	return strings.Join(all, "\n"), nil
}

// deliverMarkerReport queues the report as a message on the watch delivery path: the text in
// a 0600 file, the run marked reported and the notification written in one transaction.
func (h *Host) deliverMarkerReport(run model.MarkerRun, text string) error {
	name := markerMessagePrefx + run.ID
	if err := h.watch.WriteMessage(name, text); err != nil {
		return err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	now := h.opts.Now()
	w := model.Watch{V: 1, ID: id.String(), Thread: run.Author, Notify: string(run.Author), State: model.WatchPending,
		RegisteredAt: now, Deadline: now, DueAt: now, NextAttempt: now, UpdatedAt: now, MessageFile: name,
		Reason: "marker report of turn " + run.Turn}
	if err := h.store.ReportMarkerRun(run, w); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil // reported (or abandoned) already: exactly once
		}
		return err
	}
	h.watch.Adopt(w)
	return nil
}

// markerRoutes is thread.markers, open to every caller like thread.read, and markers.prune.
func (h *Host) markerRoutes() []route.Route {
	return []route.Route{
		route.Spec[api.ThreadMarkersParams]{Method: api.MethodThreadMarkers, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadMarkersParams) (any, error) {
				return h.ThreadMarkers(ctx, p)
			}}.Route(),
		h.markersPruneRoute(),
	}
}

// ThreadMarkers lists a thread's marker audit and its running polls and waits.
func (h *Host) ThreadMarkers(ctx context.Context, p api.ThreadMarkersParams) (api.ThreadMarkersResult, error) {
	id, err := threads.ParseThread(p.Thread)
	if err != nil {
		return api.ThreadMarkersResult{}, err
	}
	if _, err := h.threads.Harness(ctx, id); err != nil {
		return api.ThreadMarkersResult{}, err
	}
	audit, err := h.store.MarkerAudits(id)
	if err != nil {
		return api.ThreadMarkersResult{}, err
	}
	res := api.ThreadMarkersResult{Thread: string(id), Link: id.Link(), Audit: audit, Running: h.markers.Active(id)}
	if res.Audit == nil {
		res.Audit = []model.MarkerAudit{}
	}
	if res.Running == nil {
		res.Running = []model.MarkerRun{}
	}
	if c, err := h.store.MarkerChild(id); err == nil {
		res.Created = &c
	}
	return res, nil
}

// markerWorktreeRoot is where created threads get their own worktrees: [markers]
// worktree_dir, else the home's worktrees folder.
func (h *Host) markerWorktreeRoot() string {
	if dir := h.config().Markers.WorktreeDir; dir != "" {
		return dir
	}
	return filepath.Join(h.opts.Home, "worktrees")
}

const readTimeoutMarkers = 30 * time.Second

// markerThreads is the marker engine's view of the host's threads.
type markerThreads struct{ h *Host }

func (t markerThreads) harnessOf(ctx context.Context, id string) (model.ThreadID, harness.Harness, error) {
	tid, err := model.ParseThreadID(id)
	if err != nil {
		return "", nil, model.Errorf(model.CodeThreadNotFound, "name a thread by its id", "no thread %q", id)
	}
	hs, err := t.h.threads.Harness(ctx, tid)
	return tid, hs, err
}

// Facts reads what the gates need: project, principal, parent, goal and turn state.
func (t markerThreads) Facts(ctx context.Context, id string) (marker.Facts, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return marker.Facts{}, err
	}
	snap, err := hs.Read(ctx, tid, harness.ReadRequest{})
	if err != nil {
		return marker.Facts{}, err
	}
	f := marker.Facts{ID: string(tid), Harness: hs.Name(), Cwd: snap.Info.Cwd, Running: threads.Running(snap.Info), Principal: t.principal(tid)}
	if f.Cwd == "" {
		if rec, err := t.h.store.Thread(tid); err == nil {
			f.Cwd = rec.Cwd
		}
	}
	f.Project = marker.Project(ctx, f.Cwd)
	if snap.Info.LastTurn != nil {
		f.LastTurnStatus = snap.Info.LastTurn.Status
	}
	if o, err := t.h.store.Origin(tid); err == nil {
		f.Parent = string(o.ParentThread)
	}
	if rec, err := t.h.store.Thread(tid); err == nil {
		f.Goal = rec.Goal
	}
	if c, err := t.h.store.MarkerChild(tid); err == nil {
		f.MarkerCreated = true
		if _, statErr := os.Stat(f.Cwd); c.Repo != "" && statErr != nil {
			f.Project = c.Repo // its worktree was pruned: it stays in its repository's project
		}
	}
	f.Leaf = t.h.isHandoffTask(tid)
	return f, nil
}

// isHandoffTask reports whether a thread is a handoff task's (a leaf for marker blocks); a
// store that cannot say counts as yes.
func (h *Host) isHandoffTask(id model.ThreadID) bool {
	_, err := h.store.Task(id)
	return !errors.Is(err, store.ErrNotFound)
}

// principal is who a thread acts for in the marker gates: the client of its principal
// (threads.PrincipalOf), else the operator (threads started at this runtime's terminal or CLI,
// their delegation trees, and sessions codexhost did not start).
func (t markerThreads) principal(id model.ThreadID) string {
	if p, ok, err := t.h.threads.PrincipalOf(id); err == nil && ok && strings.HasPrefix(p, model.ClientRecipientPrefix) {
		return p
	}
	return principalOperator
}

// View is a report snapshot of one thread.
func (t markerThreads) View(ctx context.Context, id string, chars int) (marker.ThreadView, bool, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return marker.ThreadView{}, false, err
	}
	snap, err := hs.Read(ctx, tid, harness.ReadRequest{})
	if err != nil {
		return marker.ThreadView{}, false, err
	}
	// The report is read by agents: the public status words, as thread read prints them.
	v := marker.ThreadView{ID: string(tid), Status: model.PublicStatus(snap.Info)}
	if lt := snap.Info.LastTurn; lt != nil {
		v.TurnID, v.TurnStatus = lt.ID, model.PublicTurnStatus(lt.Status)
	}
	if r := snap.Result; r != nil {
		v.Result = marker.Tail(r.Text, chars)
	}
	return v, threads.Running(snap.Info), nil
}

// Create starts a sibling thread: the author's principal (its parent is the author), its own
// worktree when the author's cwd is in a git work tree, and the block's prompt as first turn.
func (t markerThreads) Create(ctx context.Context, author marker.Facts, c marker.Create) (marker.Created, error) {
	name, err := t.createHarness(author, c)
	if err != nil {
		return marker.Created{}, err
	}
	out := marker.Created{Harness: name, Cwd: author.Cwd}
	cwd := author.Cwd
	if _, ok := marker.GitTop(ctx, author.Cwd); ok {
		wtName, err := uuid.NewV7()
		if err != nil {
			return marker.Created{}, err
		}
		wt, err := marker.AddWorktree(ctx, author.Cwd, t.h.markerWorktreeRoot(), wtName.String())
		switch {
		case errors.Is(err, marker.ErrNoCommit):
			// Nothing to branch from: the thread shares the cwd, as outside git.
			out.Shared = marker.ErrNoCommit.Error()
		case err != nil:
			return marker.Created{}, err
		default:
			out.Repo, out.Worktree, out.Branch, out.Cwd, cwd = wt.Repo, wt.Path, wt.Branch, wt.Cwd, wt.Cwd
		}
	}
	parent := model.ThreadID(author.ID)
	var refs []string
	if o, err := t.h.store.Origin(parent); err == nil {
		refs = o.Refs
	}
	child, _, err := t.h.threads.StartChild(ctx, threads.Child{Harness: name, Cwd: cwd, Model: c.Model, Effort: c.Effort, Task: c.Prompt,
		Parent: parent, ParentHarness: author.Harness, Refs: refs})
	var failed *threads.ChildError
	switch {
	case errors.As(err, &failed) && failed.FirstTurn:
		out.ID = string(child)
		return out, fmt.Errorf("the thread %s was created but its first turn did not start: %w", child, failed.Err)
	case err != nil:
		if out.Worktree != "" {
			// No thread owns the worktree: it goes now rather than never.
			marker.RemoveWorktree(ctx, out.Repo, out.Worktree, out.Branch, false)
		}
		if errors.As(err, &failed) {
			return marker.Created{}, failed.Err
		}
		return marker.Created{}, err
	}
	out.ID = string(child)
	return out, nil
}

// createHarness picks the harness of a created thread: `harness`, else the executor (local:
// the author's harness; docker and cloud: [markers.executors]), else the author's.
func (t markerThreads) createHarness(author marker.Facts, c marker.Create) (string, error) {
	name := c.Harness
	switch {
	case name != "":
	case c.Executor == "docker" || c.Executor == "cloud":
		mapped, ok := t.h.config().Markers.Executors[c.Executor]
		if !ok {
			return "", model.Errorf(model.CodeFailedPrecondition, "map it in [markers.executors] of config.toml", "the executor %s is not mapped to a harness here", c.Executor)
		}
		name = mapped
	default:
		name = author.Harness
	}
	if _, ok := t.h.harnesses[name]; !ok {
		return "", model.Errorf(model.CodeFailedPrecondition, "use one of: "+strings.Join(harnessRegistry{t.h}.Names(), ", "), "harness %q is not registered", name)
	}
	return name, nil
}

// Cancel stops the running turn through the harness's cancel path.
func (t markerThreads) Cancel(ctx context.Context, id string) (string, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return "", err
	}
	return hs.Cancel(ctx, tid)
}

// Retry starts a new turn with the last turn's user message; the thread keeps its model.
func (t markerThreads) Retry(ctx context.Context, id string) (string, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return "", err
	}
	snap, err := hs.Read(ctx, tid, harness.ReadRequest{Messages: true, Limit: model.MaxPageLimit})
	if err != nil {
		return "", err
	}
	if snap.Info.LastTurn == nil {
		return "", model.Errorf(model.CodeFailedPrecondition, "retry a thread that ran a turn", "the thread has no turn")
	}
	last := snap.Info.LastTurn.ID
	for i := len(snap.Messages) - 1; i >= 0; i-- {
		if m := snap.Messages[i]; m.TurnID == last && m.Role == model.RoleUser {
			return hs.Send(ctx, tid, m.Text)
		}
	}
	return "", model.Errorf(model.CodeFailedPrecondition, "send the thread a new message instead", "the last turn's user message was not found")
}

// Permission: the operator may cancel and retry; a configured client may cancel (it may start
// threads) and retry only with the grant; an unknown client is a failed lookup.
func (t markerThreads) Permission(principal string, tool marker.Tool) marker.Permission {
	if principal == principalOperator {
		return marker.Permission{Allowed: true}
	}
	client, ok := strings.CutPrefix(principal, model.ClientRecipientPrefix)
	if !ok {
		return marker.Permission{LookupFailed: true}
	}
	if client == config.OperatorClient {
		return marker.Permission{Allowed: true} // the home's own operator client
	}
	cfg := t.h.config()
	if _, known := cfg.Clients[client]; !known {
		return marker.Permission{LookupFailed: true}
	}
	if tool == marker.ToolRetry {
		return marker.Permission{Allowed: cfg.Markers.MayRetry(client)}
	}
	return marker.Permission{Allowed: true}
}

// ActiveThreads counts the principal's threads with a running turn.
func (t markerThreads) ActiveThreads(_ context.Context, principal string) (int, error) {
	n := 0
	for _, hs := range t.h.harnesses {
		for _, id := range hs.Active() {
			if t.principal(id) == principal {
				n++
			}
		}
	}
	return n, nil
}
