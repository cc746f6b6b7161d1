// Package supervise is `codexhost continue`: supervised branches of native sessions. A
// branch is a codexhost thread of its own that continues a session of a local Codex home or
// of a paired node without ever resuming the source. Branches keeps the bindings (store
// records: ids and state only) and each branch's bounded history and latest node turn (0600
// files of the home); Service runs the branches' turns and serves catalog.continue.
package supervise

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/internal/keylock"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/store"
)

// Branches keeps the supervised branches of the catalog's sources.
type Branches struct {
	cat  *catalog.Catalog
	st   *store.Store
	dir  string
	now  func() time.Time
	log  io.Writer
	lock keylock.Locks // host/source: continue and archive of one source in turn

	mu sync.Mutex
	// initialising counts the first sends creating a source's canonical thread right now.
	initialising map[string]int
}

// BranchOptions tune Branches; zero fields take time.Now and no log.
type BranchOptions struct {
	Now func() time.Time
	Log io.Writer // raw App Server errors of pins, which never reach callers
}

// NewBranches keeps branches of cat's sources in st, with their files in dir (created
// 0700). Every archive of cat must pass the Branches as its guard (Service.Archive does), or
// it could archive a source between a continue's check and its commit.
func NewBranches(cat *catalog.Catalog, st *store.Store, dir string, opts BranchOptions) (*Branches, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	b := &Branches{cat: cat, st: st, dir: dir, now: opts.Now, log: opts.Log, initialising: map[string]int{}}
	return b, nil
}

func sourceKey(host string, source model.ThreadID) string { return host + "/" + string(source) }

func (b *Branches) markInitialising(host string, source model.ThreadID) func() {
	key := sourceKey(host, source)
	b.mu.Lock()
	b.initialising[key]++
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		if b.initialising[key]--; b.initialising[key] <= 0 {
			delete(b.initialising, key)
		}
		b.mu.Unlock()
	}
}

func (b *Branches) isInitialising(host string, source model.ThreadID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.initialising[sourceKey(host, source)] > 0
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
func (b *Branches) Continue(ctx context.Context, p api.CatalogContinueParams) (Branch, error) {
	hostID, node, err := b.cat.ResolveHost(p.Host)
	if err != nil {
		return Branch{}, err
	}
	id, err := model.ParseThreadID(p.Thread)
	if err != nil {
		return Branch{}, err
	}
	// A supervised thread, or the canonical thread it is bound to, opens that thread: it is
	// never branched again.
	if sup, err := b.st.Supervision(id); err == nil {
		return Branch{Supervision: sup, Existing: true}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Branch{}, err
	}
	if sup, err := b.st.SupervisionOfCanonical(id); err == nil {
		return Branch{Supervision: sup, Existing: true}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Branch{}, err
	}

	unlock := b.lock.Lock(sourceKey(hostID, id))
	defer unlock()
	if sup, err := b.st.SupervisionOfSource(hostID, id); err == nil {
		return Branch{Supervision: sup, Existing: true}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Branch{}, err
	}
	if node {
		return b.continueNode(ctx, hostID, id)
	}
	src, hist, err := b.cat.ReadLocalSource(ctx, hostID, id, func(src catalog.LocalSource) error { return localEligible(id, src) })
	if err != nil {
		return Branch{}, err
	}
	return b.create(model.Supervision{Host: hostID, Source: id, State: model.SupervisionPending, Cwd: src.Thread.Cwd}, hist)
}

// localEligible admits a stored or idle source that keeps a history and is not archived.
func localEligible(id model.ThreadID, src catalog.LocalSource) error {
	th := src.Thread
	active := th.Status.Type == appserver.StatusActive || src.Running
	switch {
	case th.Ephemeral:
		return model.Errorf(model.CodeFailedPrecondition, "ephemeral threads keep no history to continue", "thread %s is ephemeral", id)
	case src.Archived:
		return model.Errorf(model.CodeFailedPrecondition, "unarchive it in Codex first; archived sessions are not continued",
			"thread %s is archived", id)
	case active:
		return model.Errorf(model.CodeFailedPrecondition, "wait until its turn ends; an active session offers no branch",
			"thread %s is active", id).WithDetail("status", model.ThreadActive)
	case th.Status.Type != appserver.StatusIdle && th.Status.Type != appserver.StatusNotLoaded:
		return model.Errorf(model.CodeFailedPrecondition, "only idle or stored (notLoaded) sessions are continued",
			"thread %s is %s", id, src.Status).WithDetail("status", src.Status)
	}
	return nil
}

// create makes the supervised thread of sup (its Thread and times filled here): the bounded
// history file first, then the binding and the thread record in one transaction, so the
// thread is never visible without its binding. A source that got a supervised thread
// meanwhile returns that one, and the history written for nothing is removed.
func (b *Branches) create(sup model.Supervision, hist catalog.History) (Branch, error) {
	uid, err := uuid.NewV7()
	if err != nil {
		return Branch{}, err
	}
	sup.V, sup.Thread = 1, model.ThreadID(uid.String())
	if err := b.writeHistory(sup.Thread, hist); err != nil {
		return Branch{}, err
	}
	now := b.now()
	sup.CreatedAt, sup.UpdatedAt = now, now
	if sup.State == model.SupervisionBound {
		sup.BoundAt = now
	}
	rec := model.ThreadRecord{V: 1, ID: sup.Thread, Harness: model.NativeHarness, Cwd: sup.Cwd, CreatedAt: now, UpdatedAt: now, RecencyAt: now}
	got, created, err := b.st.CreateSupervision(sup, rec)
	if err != nil || !created {
		_ = os.Remove(b.historyPath(sup.Thread))
	}
	if err != nil {
		return Branch{}, err
	}
	return Branch{Supervision: got, Existing: !created}, nil
}

// Supervision reads a supervised thread's binding; ok is false for any other thread.
func (b *Branches) Supervision(thread model.ThreadID) (model.Supervision, bool, error) {
	sup, err := b.st.Supervision(thread)
	if errors.Is(err, store.ErrNotFound) {
		return sup, false, nil
	}
	return sup, err == nil, err
}

// OfCanonical finds the supervised thread bound to a canonical native thread.
func (b *Branches) OfCanonical(canonical model.ThreadID) (model.Supervision, bool, error) {
	sup, err := b.st.SupervisionOfCanonical(canonical)
	if errors.Is(err, store.ErrNotFound) {
		return sup, false, nil
	}
	return sup, err == nil, err
}

// GuardArchive is taken by archive before it reads the thread and held until it is done: a
// source whose branch is pending or initialising is refused (its first turn must create the
// canonical thread first), and no branch can appear meanwhile.
func (b *Branches) GuardArchive(host string, id model.ThreadID) (func(), error) {
	unlock := b.lock.Lock(sourceKey(host, id))
	sup, err := b.st.SupervisionOfSource(host, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return unlock, nil
	case err != nil:
		unlock()
		return nil, err
	case sup.State == model.SupervisionPending:
		unlock()
		state := "a pending"
		if b.isInitialising(host, id) {
			state = "an initialising"
		}
		return nil, model.Errorf(model.CodeFailedPrecondition,
			"send the supervised thread its first message (`codexhost thread send "+string(sup.Thread)+"`) so that its canonical thread exists, then archive",
			"thread %s has %s supervised branch %s", id, state, sup.Thread).WithDetail("supervisedThread", string(sup.Thread))
	}
	return unlock, nil
}

// CanonicalOwner says which supervised thread owns a canonical thread, or "": archiving it
// would take the supervised thread's history with it.
func (b *Branches) CanonicalOwner(id string) string {
	sup, err := b.st.SupervisionOfCanonical(model.ThreadID(id))
	switch {
	case err == nil:
		return "is the canonical thread of supervised thread " + string(sup.Thread)
	case !errors.Is(err, store.ErrNotFound):
		return "cannot be checked for a supervised binding"
	}
	return ""
}
