package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/internal/keylock"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/store"
)

// nodeHostPrefix starts the ids of paired nodes.
const nodeHostPrefix = api.NodeHostPrefix

// IsNodeHost reports whether id names a paired node rather than a local host.
func IsNodeHost(id string) bool { return strings.HasPrefix(id, nodeHostPrefix) }

// Supervisor keeps the supervised branches of the catalog's sources: a branch is a new
// codexhost thread that continues a native session without ever resuming it. Bindings are
// records in the store (ids and state only); each branch's bounded history is a file in dir.
type Supervisor struct {
	cat *Catalog
	st  *store.Store
	dir string

	locks keylock.Locks // host/source: continue and archive of one source in turn

	mu sync.Mutex
	// initialising counts the first sends creating a source's canonical thread right now.
	initialising map[string]int
}

// NewSupervisor attaches branch keeping to cat; dir (created 0700) holds the histories.
func NewSupervisor(cat *Catalog, st *store.Store, dir string) (*Supervisor, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	s := &Supervisor{cat: cat, st: st, dir: dir, initialising: map[string]int{}}
	cat.sup = s
	return s, nil
}

// lock serialises continue and archive of one source, so that no branch appears between
// archive's check and the archive itself.
func (s *Supervisor) lock(host string, source model.ThreadID) func() {
	return s.locks.Lock(host + "/" + string(source))
}

func (s *Supervisor) markInitialising(host string, source model.ThreadID) func() {
	key := host + "/" + string(source)
	s.mu.Lock()
	s.initialising[key]++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.initialising[key]--; s.initialising[key] <= 0 {
			delete(s.initialising, key)
		}
		s.mu.Unlock()
	}
}

func (s *Supervisor) isInitialising(host string, source model.ThreadID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialising[host+"/"+string(source)] > 0
}

// Branch is the answer of Continue.
type Branch struct {
	Supervision model.Supervision
	Existing    bool
}

// Continue returns the supervised thread of a source: the one made earlier, or a new pending
// branch carrying the source's bounded visible history. Only a stored or idle source of a
// local host is branched; an active one is refused, but its existing branch still opens. The
// source is read, never resumed, subscribed to or changed.
func (s *Supervisor) Continue(ctx context.Context, p api.CatalogContinueParams) (Branch, error) {
	c := s.cat
	h, err := c.host(p.Host)
	if err != nil {
		return Branch{}, err
	}
	id, err := model.ParseThreadID(p.Thread)
	if err != nil {
		return Branch{}, err
	}
	// A supervised thread, or the canonical thread it is bound to, opens that thread: it is
	// never branched again.
	if sup, err := s.st.Supervision(id); err == nil {
		return Branch{Supervision: sup, Existing: true}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Branch{}, err
	}
	if sup, err := s.st.SupervisionOfCanonical(id); err == nil {
		return Branch{Supervision: sup, Existing: true}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Branch{}, err
	}

	unlock := s.lock(h.spec.ID, id)
	defer unlock()
	if sup, err := s.st.SupervisionOfSource(h.spec.ID, id); err == nil {
		return Branch{Supervision: sup, Existing: true}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Branch{}, err
	}
	if n := h.node(); n != nil {
		return s.continueNode(ctx, h, n, id)
	}

	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	defer cancel()
	conn, err := c.conn(ctx, hctx, h)
	if err != nil {
		return Branch{}, err
	}
	th, err := appserver.On(conn).ThreadRead(hctx, string(id))
	if err != nil {
		switch {
		case appserver.UnknownThread(err):
			return Branch{}, threadNotFound(id, h.spec.ID)
		case isHostFailure(err):
			return Branch{}, c.hostFailed(ctx, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: read %s: %v\n", h.spec.ID, id, err)
		return Branch{}, threadRefused("read the thread")
	}
	h.succeeded(c.opts.Now())
	active := th.Status.Type == appserver.StatusActive || (h.spec.Running != nil && h.spec.Running(string(id)))
	switch {
	case th.Ephemeral:
		return Branch{}, model.Errorf(model.CodeFailedPrecondition, "ephemeral threads keep no history to continue", "thread %s is ephemeral", id)
	case th.Path != nil && strings.Contains(*th.Path, "archived_sessions"):
		return Branch{}, model.Errorf(model.CodeFailedPrecondition, "unarchive it in Codex first; archived sessions are not continued",
			"thread %s is archived", id)
	case active:
		return Branch{}, model.Errorf(model.CodeFailedPrecondition, "wait until its turn ends; an active session offers no branch",
			"thread %s is active", id).WithDetail("status", model.ThreadActive)
	case th.Status.Type != appserver.StatusIdle && th.Status.Type != appserver.StatusNotLoaded:
		return Branch{}, withStatus(model.Errorf(model.CodeFailedPrecondition, "only idle or stored (notLoaded) sessions are continued",
			"thread %s is %s", id, sessionStatus(th.Status.Type)), th.Status.Type)
	}
	hist, err := c.readHistory(hctx, conn, id, harness.NativeThreadInfo(th).Title)
	if err != nil {
		switch {
		case errors.As(err, new(*model.Error)):
			return Branch{}, err
		case appserver.UnknownThread(err):
			return Branch{}, threadNotFound(id, h.spec.ID)
		case isHostFailure(err):
			return Branch{}, c.hostFailed(ctx, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: history of %s: %v\n", h.spec.ID, id, err)
		return Branch{}, threadRefused("list the thread's turns")
	}

	return s.create(model.Supervision{Host: h.spec.ID, Source: id, State: model.SupervisionPending, Cwd: th.Cwd}, hist)
}

// create makes the supervised thread of sup (its Thread and times filled here): the bounded
// history file first, then the binding and the thread record in one transaction, so the
// thread is never visible without its binding. A source that got a supervised thread
// meanwhile returns that one, and the history written for nothing is removed.
func (s *Supervisor) create(sup model.Supervision, hist History) (Branch, error) {
	uid, err := uuid.NewV7()
	if err != nil {
		return Branch{}, err
	}
	sup.V, sup.Thread = 1, model.ThreadID(uid.String())
	if err := s.writeHistory(sup.Thread, hist); err != nil {
		return Branch{}, err
	}
	now := s.cat.opts.Now()
	sup.CreatedAt, sup.UpdatedAt = now, now
	if sup.State == model.SupervisionBound {
		sup.BoundAt = now
	}
	rec := model.ThreadRecord{V: 1, ID: sup.Thread, Harness: model.NativeHarness, Cwd: sup.Cwd, CreatedAt: now, UpdatedAt: now, RecencyAt: now}
	got, created, err := s.st.CreateSupervision(sup, rec)
	if err != nil || !created {
		_ = os.Remove(s.historyPath(sup.Thread))
	}
	if err != nil {
		return Branch{}, err
	}
	return Branch{Supervision: got, Existing: !created}, nil
}

// Supervision reads a supervised thread's binding; ok is false for any other thread.
func (s *Supervisor) Supervision(thread model.ThreadID) (model.Supervision, bool, error) {
	sup, err := s.st.Supervision(thread)
	if errors.Is(err, store.ErrNotFound) {
		return sup, false, nil
	}
	return sup, err == nil, err
}

// OfCanonical finds the supervised thread bound to a canonical native thread.
func (s *Supervisor) OfCanonical(canonical model.ThreadID) (model.Supervision, bool, error) {
	sup, err := s.st.SupervisionOfCanonical(canonical)
	if errors.Is(err, store.ErrNotFound) {
		return sup, false, nil
	}
	return sup, err == nil, err
}

// archiveGuard is taken by archive before it reads the thread and held until it is done: a
// source whose branch is pending or initialising is refused (its first turn must create the
// canonical thread first), and no branch can appear meanwhile.
func (c *Catalog) archiveGuard(host string, id model.ThreadID) (func(), error) {
	s := c.sup
	if s == nil {
		return func() {}, nil
	}
	unlock := s.lock(host, id)
	sup, err := s.st.SupervisionOfSource(host, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return unlock, nil
	case err != nil:
		unlock()
		return nil, err
	case sup.State == model.SupervisionPending:
		unlock()
		state := "a pending"
		if s.isInitialising(host, id) {
			state = "an initialising"
		}
		return nil, model.Errorf(model.CodeFailedPrecondition,
			"send the supervised thread its first message (`codexhost thread send "+string(sup.Thread)+"`) so that its canonical thread exists, then archive",
			"thread %s has %s supervised branch %s", id, state, sup.Thread).WithDetail("supervisedThread", string(sup.Thread))
	}
	return unlock, nil
}

// boundOwner says which supervised thread owns a canonical thread, or "": archiving it would
// take the supervised thread's history with it.
func (c *Catalog) boundOwner(id string) string {
	if c.sup == nil {
		return ""
	}
	sup, err := c.sup.st.SupervisionOfCanonical(model.ThreadID(id))
	switch {
	case err == nil:
		return "is the canonical thread of supervised thread " + string(sup.Thread)
	case !errors.Is(err, store.ErrNotFound):
		return "cannot be checked for a supervised binding"
	}
	return ""
}

// SupervisionConn is the connection a branch's canonical thread lives on: its physical
// process must stay the same from the pin to the commit.
type SupervisionConn interface {
	Conn
	Done() <-chan struct{}
}

// Pin creates the canonical thread of a pending branch on conn and commits the binding:
// an ephemeral fork of the source without turns pins its snapshot and lets Codex choose the
// model pair (no override is sent); the probe is unsubscribed; the canonical thread starts
// with exactly that pair; the bounded history is injected; then the binding is committed
// durably. A failure before the commit leaves the branch pending, so a later send retries.
// The source is never resumed.
func (s *Supervisor) Pin(ctx context.Context, conn SupervisionConn, sup model.Supervision) (model.Supervision, error) {
	c := s.cat
	if sup.State != model.SupervisionPending {
		return sup, nil
	}
	ctx, cancel := context.WithTimeout(ctx, pinTimeout)
	defer cancel()
	done := s.markInitialising(sup.Host, sup.Source)
	defer done()
	retry := func(format string, args ...any) error {
		return model.Errorf(model.CodeFailedPrecondition, "the supervised thread is still pending: send again to retry; the runtime's log has the details",
			format, args...)
	}
	lost := func(err error) error {
		fmt.Fprintf(c.opts.Log, "supervise %s: %v\n", sup.Thread, err)
		if isHostFailure(err) {
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
	hist, err := s.History(sup.Thread)
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
		fmt.Fprintf(c.opts.Log, "supervise %s: asked for %s/%s, started %q with %s/%s\n", sup.Thread, fork.ModelProvider, fork.Model, canonical, start.ModelProvider, start.Model)
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
	if !same() {
		return sup, model.Errorf(model.CodeAppServerUnavailable, "the supervised thread is still pending: send again",
			"the supervision connection changed while the canonical thread was prepared")
	}
	bound, err := s.st.BindSupervision(sup.Thread, model.ThreadID(canonical), fork.Model, fork.ModelProvider, c.opts.Now())
	if errors.Is(err, store.ErrRebind) {
		return sup, model.Errorf(model.CodeFailedPrecondition, "read the supervised thread again; its binding is never replaced",
			"supervised thread %s was bound meanwhile", sup.Thread)
	}
	if err != nil {
		return sup, err
	}
	return bound, nil
}

// pinTimeout bounds one pin: a handful of App Server calls.
const pinTimeout = 60 * time.Second
