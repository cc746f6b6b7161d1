package supervise

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/codexhost/codexhost/internal/keylock"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/store"
)

// Supervised threads (`codexhost continue`): a branch of a native session that is a codexhost
// thread of its own. Until its first send it is pending and carries the source's bounded
// history; the first send creates its canonical Codex thread on the host's supervision
// connection, and every later turn runs there. Reads, waits, sends and cancels of the
// supervised id reach the Service through Thread.

// mirrorCursor pages the branch history after the canonical thread's own messages.
const mirrorCursor = "mirror:"

// Options are what the Service reports to and reads from, known before the runtime holds
// its home.
type Options struct {
	// Record keeps a thread's record in step with a status event of one of its turns, tells
	// the watch engine and publishes the event, under the thread id given.
	Record func(thread model.ThreadID, ev harness.Event)
	// Usage records a usage report of a canonical thread under its supervised id (ev.Thread).
	Usage func(ev harness.Event)
	// UsageOf is the public view of a codexhost thread's recorded usage, nil when none.
	UsageOf func(model.ThreadID) *model.Usage
	// Publish sends an event to the runtime's subscribers.
	Publish func(api.Event)
	// Decorate adds what the records know (origin, refs) to a thread view.
	Decorate func(*model.ThreadInfo)
	Now      func() time.Time
	Log      io.Writer
}

// Deps are what the Service runs on, given once the runtime holds its home.
type Deps struct {
	Store   *store.Store
	Catalog *catalog.Catalog
	// Native is the Codex harness of the default home (host catalog.LocalHostID).
	Native *harness.Native
	// CodexHomes are the extra Codex homes of config.toml; StartNative starts a Codex harness
	// on one of them (for host hostID) whose events go to onEvent.
	CodexHomes  []string
	StartNative func(hostID, home string, onEvent func(harness.Event)) *harness.Native
	// Dir holds the branches' files (DirName in the home).
	Dir string
}

// Service runs supervised threads. It is made with the runtime (its routes are part of the
// routing table from the start) and runs once Start gave it its dependencies.
type Service struct {
	opts       Options
	firstSends keylock.Locks // one first send of a pending branch at a time

	// Set by Start, before any request reaches the Service.
	deps     Deps
	branches *Branches
	homes    map[string]string // host id → Codex home
	node     *nodeTurns        // turns of threads bound to a paired node's thread (node_turns.go)

	// Extra Codex homes get a Codex harness of their own, started on the first send of one
	// of their branches: the canonical thread must live where its source was pinned.
	mu      sync.Mutex
	natives map[string]*harness.Native
	closed  bool
}

// New returns a Service that refuses every call until Start.
func New(opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	return &Service{opts: opts, natives: map[string]*harness.Native{}}
}

// Start attaches branch keeping to the catalog.
func (s *Service) Start(d Deps) error {
	b, err := NewBranches(d.Catalog, d.Store, d.Dir, BranchOptions{Now: s.opts.Now, Log: s.opts.Log})
	if err != nil {
		return err
	}
	homes := map[string]string{}
	for _, home := range d.CodexHomes {
		home = filepath.Clean(home)
		homes[catalog.ExtraHostID(home)] = home
	}
	s.deps, s.branches, s.homes, s.node = d, b, homes, newNodeTurns()
	return nil
}

// Branches are the branches the Service keeps; nil before Start.
func (s *Service) Branches() *Branches { return s.branches }

func (s *Service) notRunning() error {
	return model.Errorf(model.CodeFailedPrecondition, "restart the runtime", "the catalog is not running")
}

// Close stops waiting for node turns and stops the harnesses of extra homes.
func (s *Service) Close() error {
	if s.branches == nil {
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

// harnessOf is the Codex harness a host's branches run on: the native harness for the
// default home, else one per extra home.
func (s *Service) harnessOf(hostID string) (*harness.Native, error) {
	if hostID == catalog.LocalHostID {
		return s.deps.Native, nil
	}
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
	n := s.deps.StartNative(hostID, home, s.OnEvent)
	s.natives[hostID] = n
	return n, nil
}

// Thread returns the harness view of a supervised thread; ok is false for others.
func (s *Service) Thread(id model.ThreadID) (harness.Harness, bool, error) {
	if s.branches == nil {
		return nil, false, nil
	}
	_, ok, err := s.branches.Supervision(id)
	if err != nil || !ok {
		return nil, false, err
	}
	return threadView{s: s}, true, nil
}

// Canonical reports the canonical Codex thread of a supervised thread of a local host: it is
// listed once, under the supervised id the user knows, not a second time under its own.
func (s *Service) Canonical(id model.ThreadID) bool {
	if s.branches == nil {
		return false
	}
	sup, ok, err := s.branches.OfCanonical(id)
	return err == nil && ok && sup.Binding == ""
}

// CanonicalOf is where Codex runs a bound branch of a local source, and so the thread its
// approvals name; any other thread is its own.
func (s *Service) CanonicalOf(id model.ThreadID) model.ThreadID {
	if s.branches == nil {
		return id
	}
	sup, ok, err := s.branches.Supervision(id)
	if err != nil || !ok || sup.Binding != "" || sup.Canonical == "" {
		return id
	}
	return sup.Canonical
}

// SupervisedOf is the supervised thread a canonical thread runs for, the id the person
// knows; any other thread is its own.
func (s *Service) SupervisedOf(id model.ThreadID) model.ThreadID {
	if s.branches == nil {
		return id
	}
	sup, ok, err := s.branches.OfCanonical(id)
	if err != nil || !ok {
		return id
	}
	return sup.Thread
}

// ModelLocked refuses a send that asks for another model to a supervised thread: it is
// locked to the pair Codex chose at its first turn. Nil for any other thread.
func (s *Service) ModelLocked(id model.ThreadID) error {
	if _, ok, _ := s.Thread(id); ok {
		return model.Errorf(model.CodeFailedPrecondition, "send without a model; start another thread for another model",
			"thread %s is supervised and model-locked", id)
	}
	return nil
}

// OnEvent passes the events of a canonical thread on under its supervised id, so waits,
// watches, usage and the terminal app follow the id the user knows.
func (s *Service) OnEvent(ev harness.Event) {
	if s.branches == nil {
		return
	}
	sup, ok, err := s.branches.OfCanonical(ev.Thread)
	if err != nil || !ok {
		return
	}
	if ev.Usage != nil {
		if s.opts.Usage != nil {
			u := ev
			u.Thread = sup.Thread
			s.opts.Usage(u)
		}
		if ev.TurnStatus == "" {
			return // a usage report alone: no status changed
		}
		ev.Usage = nil
	}
	if d := ev.Delta; d != nil {
		s.opts.Publish(api.DeltaEvent(string(sup.Thread), ev.Status, ev.TurnID, api.ThreadDelta{ItemID: d.ItemID, Text: d.Text, Seq: d.Seq}))
		return
	}
	if ev.Progress {
		s.opts.Publish(api.Event{Type: api.EventThreadProgress, Thread: string(sup.Thread), Status: ev.Status, TurnID: ev.TurnID})
		return
	}
	s.opts.Record(sup.Thread, ev)
}

// Continue returns the supervised thread of a source, creating a pending branch when the
// source has none (catalog.continue).
func (s *Service) Continue(ctx context.Context, p api.CatalogContinueParams) (api.CatalogContinueResult, error) {
	if s.branches == nil {
		return api.CatalogContinueResult{}, s.notRunning()
	}
	b, err := s.branches.Continue(ctx, p)
	if err != nil {
		return api.CatalogContinueResult{}, err
	}
	sup := b.Supervision
	res := api.CatalogContinueResult{Host: sup.Host, Source: string(sup.Source), State: sup.State, CanonicalThread: string(sup.Canonical), Binding: sup.Binding, Existing: b.Existing}
	if hist, err := s.branches.History(sup.Thread); err == nil {
		res.History = hist.Summary()
	}
	snap, err := threadView{s: s}.Read(ctx, sup.Thread, harness.ReadRequest{})
	if err != nil {
		// The thread exists and is durable: report what the record knows rather than lose its id.
		fmt.Fprintf(s.opts.Log, "read supervised thread %s: %v\n", sup.Thread, err)
		snap.Info = model.ThreadInfo{ID: string(sup.Thread), Link: sup.Thread.Link(), Harness: model.NativeHarness, Status: model.ThreadNotLoaded, Cwd: sup.Cwd, Model: sup.Model, CreatedAt: sup.CreatedAt, UpdatedAt: sup.UpdatedAt}
	}
	s.opts.Decorate(&snap.Info)
	res.Thread = snap.Info
	return res, nil
}
