package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Supervised threads (`codexhost continue`): a branch of a native session that is a codexhost
// thread of its own. Until its first send it is pending and carries the source's bounded
// history; the first send creates its canonical Codex thread on the host's supervision
// connection, and every later turn runs there. Reads, waits, sends and cancels of the
// supervised id are routed here by threadHarness.

// supervisionDir holds the branch histories: conversation content, so files of the home
// (0700 directory, 0600 files) rather than store records, which hold ids and state only.
const supervisionDir = "supervision"

// mirrorCursor pages the branch history after the canonical thread's own messages.
const mirrorCursor = "mirror:"

// supervision is the state of the supervised threads of a Host.
type supervision struct {
	sup *catalog.Supervisor

	// Extra Codex homes get a Codex harness of their own, started on the first send of one
	// of their branches: the canonical thread must live where its source was pinned.
	mu      sync.Mutex
	homes   map[string]string // host id → Codex home
	start   func(hostID, home string) *harness.Native
	natives map[string]*harness.Native
	closed  bool

	node *nodeTurns // turns of threads bound to a paired node's thread (supervise_node.go)
}

// startSupervision attaches branch keeping to the catalog.
func (h *Host) startSupervision(cfg *config.Config, appEnv []string, logDir string) error {
	sup, err := catalog.NewSupervisor(h.catalog, h.store, filepath.Join(h.opts.Home, supervisionDir))
	if err != nil {
		return err
	}
	homes := map[string]string{}
	for _, home := range cfg.Catalog.CodexHomes {
		home = filepath.Clean(home)
		homes[catalog.ExtraHostID(home)] = home
	}
	codexBin, lookup := cfg.CodexBin, envLookup(h.opts.Environ)
	h.supervision = &supervision{sup: sup, homes: homes, natives: map[string]*harness.Native{}, node: newNodeTurns(),
		start: func(hostID, home string) *harness.Native {
			env := withVar(appEnv, "CODEX_HOME", home)
			logName := filepath.Join(logDir, "app-server-supervise-"+strings.ReplaceAll(hostID, ":", "-")+".log")
			return harness.NewNative(harness.NativeOptions{
				Start: func(ctx context.Context) (*appserver.Client, error) {
					bin, err := appserver.Locate(codexBin, lookup)
					if err != nil {
						return nil, err
					}
					return appserver.Start(ctx, appserver.Config{Bin: bin, Env: env, Dir: h.opts.Home, StderrLog: logName, ClientName: "codexhost", ClientVersion: h.opts.Version})
				},
				OnEvent: h.supervisedEvent,
				Now:     h.opts.Now,
			})
		}}
	return nil
}

// closeSupervision stops the harnesses of extra homes.
func (h *Host) closeSupervision() error {
	s := h.supervision
	if s == nil {
		return nil
	}
	s.node.close()
	s.mu.Lock()
	s.closed = true
	natives := s.natives
	s.natives = map[string]*harness.Native{}
	s.mu.Unlock()
	var first error
	for _, n := range natives {
		if err := n.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// supervisionHarness is the Codex harness a host's branches run on: the native harness for
// the default home, else one per extra home.
func (h *Host) supervisionHarness(hostID string) (*harness.Native, error) {
	if hostID == catalog.LocalHostID {
		return h.native, nil
	}
	s := h.supervision
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.natives[hostID]; n != nil {
		return n, nil
	}
	home, ok := s.homes[hostID]
	if !ok || s.closed {
		// Fail closed: the branch never moves to another Codex home.
		return nil, model.Errorf(model.CodeFailedPrecondition, "add the Codex home back to config.toml and restart the runtime",
			"the host %s of this supervised thread is not configured", hostID)
	}
	n := s.start(hostID, home)
	s.natives[hostID] = n
	return n, nil
}

// supervisedThread returns the harness view of a supervised thread; ok is false for others.
func (h *Host) supervisedThread(id model.ThreadID) (harness.Harness, bool, error) {
	if h.supervision == nil {
		return nil, false, nil
	}
	_, ok, err := h.supervision.sup.Supervision(id)
	if err != nil || !ok {
		return nil, false, err
	}
	return supervisedHarness{h: h}, true, nil
}

// supervisedEvent passes status changes of a canonical thread on under its supervised id, so
// waits, watches and the terminal app follow the id the user knows.
func (h *Host) supervisedEvent(ev harness.Event) {
	if h.supervision == nil {
		return
	}
	sup, ok, err := h.supervision.sup.OfCanonical(ev.Thread)
	if err != nil || !ok {
		return
	}
	at := ev.At
	if at.IsZero() {
		at = h.opts.Now()
	}
	if ev.TurnStatus != "" {
		if rec, err := h.store.Thread(sup.Thread); err == nil {
			rec.UpdatedAt, rec.RecencyAt = at, at
			if err := h.store.PutThread(rec); err != nil {
				fmt.Fprintf(h.opts.Log, "thread record of %s: %v\n", sup.Thread, err)
			}
		}
	}
	if h.watch != nil {
		h.watch.OnEvent(sup.Thread, ev.Status, ev.TurnStatus)
	}
	h.publish(api.Event{Type: api.EventThreadStatus, Thread: string(sup.Thread), Status: ev.Status, TurnID: ev.TurnID, TurnStatus: ev.TurnStatus})
}

// CatalogContinue returns the supervised thread of a source, creating a pending branch when
// the source has none. It is an operator method (its policy in runtime/routes.go): agents
// get no write controls, and a node's thread needs operator.admin.
func (h *Host) CatalogContinue(ctx context.Context, p api.CatalogContinueParams) (api.CatalogContinueResult, error) {
	if h.supervision == nil {
		return api.CatalogContinueResult{}, model.Errorf(model.CodeFailedPrecondition, "restart the runtime", "the catalog is not running")
	}
	b, err := h.supervision.sup.Continue(ctx, p)
	if err != nil {
		return api.CatalogContinueResult{}, err
	}
	sup := b.Supervision
	res := api.CatalogContinueResult{Host: sup.Host, Source: string(sup.Source), State: sup.State, CanonicalThread: string(sup.Canonical), Binding: sup.Binding, Existing: b.Existing}
	if hist, err := h.supervision.sup.History(sup.Thread); err == nil {
		res.History = hist.Summary()
	}
	snap, err := supervisedHarness{h: h}.Read(ctx, sup.Thread, harness.ReadRequest{})
	if err != nil {
		// The thread exists and is durable: report what the record knows rather than lose its id.
		fmt.Fprintf(h.opts.Log, "read supervised thread %s: %v\n", sup.Thread, err)
		snap.Info = model.ThreadInfo{ID: string(sup.Thread), Link: sup.Thread.Link(), Harness: model.NativeHarness, Status: model.ThreadNotLoaded, Cwd: sup.Cwd, Model: sup.Model, CreatedAt: sup.CreatedAt, UpdatedAt: sup.UpdatedAt}
	}
	h.decorate(&snap.Info)
	res.Thread = snap.Info
	return res, nil
}

// refuseSendModel answers a send that asks for another model: a turn runs with its thread's
// model, and a supervised thread is locked to the pair Codex chose at its first turn.
func (h *Host) refuseSendModel(id model.ThreadID) error {
	if _, ok, _ := h.supervisedThread(id); ok {
		return model.Errorf(model.CodeFailedPrecondition, "send without a model; start another thread for another model",
			"thread %s is supervised and model-locked", id)
	}
	return model.Errorf(model.CodeInvalidArgument, "send without a model; start another thread with `delegate start --model`",
		"thread send keeps the thread's model")
}

// supervisedHarness is the Harness view of supervised threads; every id it gets is a
// supervised thread's, mapped to its canonical thread once bound.
type supervisedHarness struct{ h *Host }

var _ harness.Harness = supervisedHarness{}

func (s supervisedHarness) Name() string { return model.NativeHarness }
func (s supervisedHarness) Kind() string { return model.HarnessNative }

// Start is never used: supervised threads are made by continue.
func (s supervisedHarness) Start(context.Context, harness.StartRequest) (model.ThreadID, error) {
	return "", model.Errorf(model.CodeInvalidArgument, "use `codexhost continue`", "supervised threads are made by continue")
}

// load reads the binding and, unless only a pending branch's own files are needed, the
// harness of its host.
func (s supervisedHarness) load(id model.ThreadID, needHarness bool) (model.Supervision, *harness.Native, error) {
	sup, ok, err := s.h.supervision.sup.Supervision(id)
	if err != nil {
		return sup, nil, err
	}
	if !ok {
		return sup, nil, threadNotFound(id)
	}
	if sup.Binding == model.BindingNodeSession || (!needHarness && sup.State == model.SupervisionPending) {
		return sup, nil, nil // a node's thread runs on the node, through the catalog
	}
	n, err := s.h.supervisionHarness(sup.Host)
	return sup, n, err
}

// Send runs a turn on the canonical thread, creating it first when the branch is pending.
// Nothing ever falls back to another thread or harness: every failure fails the send.
func (s supervisedHarness) Send(ctx context.Context, id model.ThreadID, text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", harness.NotStarted(model.Errorf(model.CodeInvalidArgument, "give the message text", "the message is empty"))
	}
	sup, n, err := s.load(id, true)
	if err != nil {
		return "", harness.NotStarted(err)
	}
	if sup.Binding == model.BindingNodeSession {
		return s.h.nodeSend(sup, text)
	}
	if sup.State == model.SupervisionPending {
		// One first send at a time; a second one finds the thread bound.
		unlock := s.h.keyLocks.Lock("supervise:" + string(id))
		defer unlock()
		if sup, n, err = s.load(id, true); err != nil {
			return "", harness.NotStarted(err)
		}
		if sup.State == model.SupervisionPending {
			c, err := n.Client(ctx)
			if err != nil {
				return "", harness.NotStarted(err)
			}
			if sup, err = s.h.supervision.sup.Pin(ctx, c, sup); err != nil {
				return "", harness.NotStarted(err)
			}
		}
	}
	if sup.Canonical == "" {
		return "", harness.NotStarted(model.Errorf(model.CodeInternal, "report this", "supervised thread %s is %s without a canonical thread", id, sup.State))
	}
	return n.Send(ctx, sup.Canonical, text)
}

// Cancel interrupts the canonical thread's turn; a pending branch has none.
func (s supervisedHarness) Cancel(ctx context.Context, id model.ThreadID) (string, error) {
	sup, n, err := s.load(id, false)
	if err != nil {
		return "", err
	}
	if sup.Binding == model.BindingNodeSession {
		return "", model.Errorf(model.CodeFailedPrecondition, "a turn resumed on a node runs to its end; stop it on the node if you must",
			"thread %s is bound to a paired node's thread; interrupting is not offered there", id)
	}
	if sup.Canonical == "" {
		return "", model.Errorf(model.CodeFailedPrecondition, "nothing to cancel; its first send starts its first turn", "supervised thread %s has no turn yet", id)
	}
	return n.Cancel(ctx, sup.Canonical)
}

// Read shows a pending branch as an idle thread with the history it carries, and a bound one
// as its canonical thread under the supervised id, its messages followed by that history.
func (s supervisedHarness) Read(ctx context.Context, id model.ThreadID, req harness.ReadRequest) (harness.Snapshot, error) {
	sup, n, err := s.load(id, false)
	if err != nil {
		return harness.Snapshot{}, err
	}
	if sup.Binding == model.BindingNodeSession {
		snap, err := s.h.nodeRead(ctx, sup, req)
		snap.Info.ID, snap.Info.Link, snap.Info.Harness = string(id), id.Link(), model.NativeHarness
		return snap, err
	}
	mirror := req.Messages && strings.HasPrefix(req.Cursor, mirrorCursor)
	var snap harness.Snapshot
	if sup.State == model.SupervisionPending {
		hist, err := s.h.supervision.sup.History(id)
		if err != nil {
			return harness.Snapshot{}, err
		}
		snap.Info = model.ThreadInfo{Status: model.ThreadIdle, Title: hist.Title, Cwd: sup.Cwd, CreatedAt: sup.CreatedAt, UpdatedAt: sup.UpdatedAt}
		mirror = req.Messages
	} else {
		inner := req
		if mirror {
			inner = harness.ReadRequest{}
		}
		snap, err = n.Read(ctx, sup.Canonical, inner)
		if model.IsCode(err, model.CodeThreadNotFound) {
			return harness.Snapshot{}, model.Errorf(model.CodeFailedPrecondition, "the supervised thread cannot be moved to another thread; continue the source again for a new branch",
				"the canonical thread %s of supervised thread %s is missing", sup.Canonical, id)
		}
		if err != nil {
			return harness.Snapshot{}, err
		}
		if req.Messages && !mirror && snap.NextCursor == "" {
			if hist, err := s.h.supervision.sup.History(id); err == nil && len(hist.Messages) > 0 {
				snap.NextCursor = mirrorCursor + "end"
			}
		}
	}
	snap.Info.ID, snap.Info.Link, snap.Info.Harness = string(id), id.Link(), model.NativeHarness
	if mirror {
		hist, err := s.h.supervision.sup.History(id)
		if err != nil {
			return harness.Snapshot{}, err
		}
		snap.Messages, snap.NextCursor, err = mirrorPage(hist.Messages, req)
		if err != nil {
			return harness.Snapshot{}, err
		}
	}
	return snap, nil
}

// mirrorPage pages the history newest page first, oldest first within a page, like every
// messages view. Its cursor is the end of the next page; "end" is the newest one.
func mirrorPage(msgs []model.Message, req harness.ReadRequest) ([]model.Message, string, error) {
	limit := req.Limit
	if limit <= 0 {
		limit = model.DefaultPageLimit
	}
	limit = min(limit, model.MaxPageLimit)
	end := len(msgs)
	if req.Cursor != "" {
		rest, ok := strings.CutPrefix(req.Cursor, mirrorCursor)
		n, err := strconv.Atoi(rest)
		switch {
		case ok && rest == "end":
		case !ok || err != nil || n < 0 || n > len(msgs):
			return nil, "", model.Errorf(model.CodeInvalidArgument, "pass the nextCursor of the previous page unchanged", "malformed cursor")
		default:
			end = n
		}
	}
	start := max(0, end-limit)
	page := append([]model.Message{}, msgs[start:end]...)
	next := ""
	if start > 0 {
		next = mirrorCursor + strconv.Itoa(start)
	}
	return page, next, nil
}

// Owns reports whether id is a supervised thread.
func (s supervisedHarness) Owns(_ context.Context, id model.ThreadID) bool {
	_, ok, _ := s.h.supervision.sup.Supervision(id)
	return ok
}

// Active is empty: turns run on canonical threads, which their harness reports.
func (s supervisedHarness) Active() []model.ThreadID { return nil }

// Close does nothing: the harnesses it uses are closed by the Host.
func (s supervisedHarness) Close() error { return nil }
