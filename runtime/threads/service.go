// Package threads is the runtime's thread capability: delegate start (with its idempotency),
// read, wait, send, cancel, list, lineage, watch registration and the principal rules that
// say who may touch which thread. The Service registers its own routes; the runtime wires it
// to the store, the harnesses, the supervised threads and the watch engine.
package threads

import (
	"cmp"
	"context"
	"errors"
	"io"
	"time"

	"github.com/codexhost/codexhost/internal/keylock"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/runtime/watch"
	"github.com/codexhost/codexhost/store"
)

// Harnesses is the runtime's registry of harnesses.
type Harnesses interface {
	// Harness is the harness registered under name.
	Harness(name string) (harness.Harness, bool)
	// Names lists the registered harnesses, native first, the others sorted.
	Names() []string
	// Native is the Codex harness of the default home.
	Native() *harness.Native
}

// Supervised is the view of supervised threads (`codexhost continue`, runtime/supervise).
type Supervised interface {
	// Thread returns the harness view of a supervised thread; ok is false for others.
	Thread(id model.ThreadID) (harness.Harness, bool, error)
	// Canonical reports the canonical Codex thread of a supervised thread, which lists once,
	// under the supervised id.
	Canonical(id model.ThreadID) bool
	// InCatalog reports whether a catalog host lists the native session of thread id (of
	// harness harnessName) as its own row: thread.list with OutsideCatalog leaves it out.
	InCatalog(id model.ThreadID, harnessName string) bool
	// ModelLocked refuses a send that asks for another model to a supervised thread.
	ModelLocked(id model.ThreadID) error
	// SendPolicy escalates thread.send of a node-bound supervised thread.
	SendPolicy(ctx context.Context, env route.Env, p api.ThreadSendParams) (*route.Policy, error)
}

// Options are what the Service reads and reports to, known before the runtime holds its home.
type Options struct {
	Supervised Supervised
	// Watch is the watch engine, running once the runtime holds its home.
	Watch func() *watch.Engine
	// Subscribe registers fn for runtime events until ctx ends (thread.wait follows them).
	Subscribe func(ctx context.Context, fn func(api.Event))
	// Publish sends an event to the runtime's subscribers (thread.usage).
	Publish func(api.Event)
	Config  func() *config.Config
	// OnCancel is told of every `thread cancel` before the turn is interrupted (the marker
	// blocks of its author are abandoned).
	OnCancel func(model.ThreadID)
	// Approvals are a thread's approvals, oldest first: a page of messages shows those of
	// its turns.
	Approvals func(thread string) []model.Approval
	Now       func() time.Time
	Log       io.Writer
}

// Deps are what the Service runs on, given once the runtime holds its home.
type Deps struct {
	Store     *store.Store
	Harnesses Harnesses
}

// Service serves the thread methods. It is made with the runtime (its routes are part of the
// routing table from the start) and runs once Start gave it its dependencies.
type Service struct {
	opts     Options
	deps     Deps
	keyLocks keylock.Locks // one delegation per request or dedupe key at a time
	models   nativeModels  // the App Server's model catalog (inspect.go)
}

// New returns a Service; Start must be called before any request reaches it.
func New(opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.OnCancel == nil {
		opts.OnCancel = func(model.ThreadID) {}
	}
	return &Service{opts: opts}
}

// Start gives the Service the store and the harnesses.
func (s *Service) Start(d Deps) { s.deps = d }

// Harness finds the harness a thread belongs to: a supervised thread's view first, then its
// registration, then each external harness's own files, then the App Server.
func (s *Service) Harness(ctx context.Context, id model.ThreadID) (harness.Harness, error) {
	if hs, ok, err := s.opts.Supervised.Thread(id); ok || err != nil {
		return hs, err
	}
	reg := s.deps.Harnesses
	if rec, err := s.deps.Store.Thread(id); err == nil {
		if hs, ok := reg.Harness(rec.Harness); ok {
			return hs, nil
		}
		return nil, model.Errorf(model.CodeFailedPrecondition, "add the harness back to config.toml and restart the runtime", "thread %s belongs to harness %q, which is not configured", id, rec.Harness)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	for _, name := range reg.Names() {
		if hs, ok := reg.Harness(name); ok && name != model.NativeHarness && hs.Owns(ctx, id) {
			return hs, nil
		}
	}
	if native := reg.Native(); native.Owns(ctx, id) {
		return native, nil
	}
	return nil, threadNotFound(id)
}

func threadNotFound(id model.ThreadID) error {
	return model.Errorf(model.CodeThreadNotFound, "check the id with `codexhost thread list`", "no thread %s in any harness", id)
}

// ParseThread reads a thread id or a codex://threads/<id> link given by a caller.
func ParseThread(s string) (model.ThreadID, error) {
	if s == "" {
		return "", model.Errorf(model.CodeInvalidArgument, "pass a thread id or a codex://threads/<id> link", "missing thread id")
	}
	return model.ParseThreadID(s)
}

// Decorate adds what the records know (origin, refs) to a harness view.
func (s *Service) Decorate(info *model.ThreadInfo) {
	info.Refs = []string{}
	info.SetPublic()
	info.Usage = s.UsageOf(model.ThreadID(info.ID))
	o, err := s.deps.Store.Origin(model.ThreadID(info.ID))
	if err != nil {
		return
	}
	info.Refs = append(info.Refs, o.Refs...)
	// A client's start has its delegation id on the origin record (no Delegation record).
	info.Origin = &model.OriginView{Kind: o.Kind, ParentThread: string(o.ParentThread), Client: o.Client, DelegationID: cmp.Or(o.DelegationID, o.ClientDelegationID)}
}

// Running reports a thread with a turn in flight: active here, or (read-only) a turn that
// another Codex process is still running on a thread that is not loaded here.
func Running(info model.ThreadInfo) bool {
	return info.Status == model.ThreadActive || (info.LastTurn != nil && info.LastTurn.Status == model.TurnInProgress)
}

// CheckText refuses an empty or oversized task or message; what names its flag.
func CheckText(what, text string) error {
	if text == "" {
		return model.Errorf(model.CodeInvalidArgument, "pass --"+what+" TEXT or pipe it on stdin", "empty %s", what)
	}
	if len(text) > api.MaxTextBytes {
		return model.Errorf(model.CodeInvalidArgument, "put long material in a file and reference it", "%s is %d bytes; the limit is %d", what, len(text), api.MaxTextBytes)
	}
	return nil
}

func pageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return model.DefaultPageLimit, nil
	case limit < 0 || limit > model.MaxPageLimit:
		return 0, model.Errorf(model.CodeInvalidArgument, "use --limit between 1 and 100", "limit %d out of range", limit)
	}
	return limit, nil
}
