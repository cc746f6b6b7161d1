package marker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/threads"
	"github.com/codexhost/codexhost/runtime/watch"
	"github.com/codexhost/codexhost/store"
)

// The marker capability: after a turn ends completed, the Service reads the turn's assistant
// output, and its Engine runs the blocks and reports back through the watch delivery path.
// The runtime makes it with the host (its routes are in the table from the start) and starts
// it once the host holds its home.

const (
	principalOperator  = "operator"
	maxOutputPages     = 5 // pages of 100 messages read back for one turn's output
	markerMessagePrefx = "marker-"
	readTimeoutMarkers = 30 * time.Second
)

// HostThreads is the thread capability (runtime/threads) as the marker capability uses it.
type HostThreads interface {
	// Harness finds the harness a thread belongs to.
	Harness(ctx context.Context, id model.ThreadID) (harness.Harness, error)
	// PrincipalOf is a thread's principal; ok is false for a thread codexhost did not start.
	PrincipalOf(id model.ThreadID) (principal string, ok bool, err error)
	// StartChild starts and records a created thread with its first turn.
	StartChild(ctx context.Context, c threads.Child) (threads.Started, error)
}

// ServiceOptions are what the Service reads and reports to, known before the runtime holds
// its home.
type ServiceOptions struct {
	Home    string // the codexhost home: names and default worktrees live there
	Threads HostThreads
	Config  func() *config.Config
	Now     func() time.Time
	Log     io.Writer
	// Fault is the crash tests' hook (nil in ordinary builds).
	Fault func(point string)
}

// Deps are what the Service runs on, given once the runtime holds its home.
type Deps struct {
	Store     *store.Store
	Harnesses threads.Harnesses
	Watch     *watch.Engine // the delivery path of reports
}

// Service is the marker capability of a runtime.
type Service struct {
	opts   ServiceOptions
	deps   Deps
	engine *Engine
}

// NewService returns a Service; Start must be called before any request reaches it.
func NewService(opts ServiceOptions) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	return &Service{opts: opts}
}

// Start opens the marker engine and resumes the runs the last runtime left.
func (s *Service) Start(d Deps) error {
	s.deps = d
	cfg := s.opts.Config().Markers
	s.engine = New(Options{
		Threads: hostThreads{s},
		Store:   d.Store,
		Deliver: s.deliverReport,
		Now:     s.opts.Now,
		Log:     s.opts.Log,
		Workers: cfg.WorkerSlots(),
		// Read rounds are shared round robin across principals, each bounded to its share.
		PrincipalWorkers: cfg.PrincipalSlots(),
		Quota:            func() int { return s.opts.Config().Markers.ActiveQuota() },
		// Names of task-create blocks are content: next to the queued messages, not in records.
		NamesDir: filepath.Join(s.opts.Home, "marker-names"),
		ParentOf: func(id model.ThreadID) (model.ThreadID, error) {
			o, err := d.Store.Origin(id)
			return o.ParentThread, err
		},
		TurnOutput: func(ctx context.Context, author model.ThreadID, turn string) (string, error) {
			ctx, cancel := context.WithTimeout(ctx, readTimeoutMarkers)
			defer cancel()
			return s.turnOutput(ctx, author, turn)
		},
		Fault: s.opts.Fault,
	})
	if err := s.engine.Resume(); err != nil {
		return err
	}
	return s.recoverTurns()
}

// Close stops the engine.
func (s *Service) Close() {
	if s.engine != nil {
		s.engine.Close()
	}
}

// OnEvent is the hook of the runtime's harness events: it wakes polls and waits, abandons the
// runs of an interrupted author, and runs the blocks of a completed turn.
func (s *Service) OnEvent(ev harness.Event) {
	if s.engine == nil || ev.Progress {
		return
	}
	s.engine.OnEvent(ev.Thread, ev.TurnStatus)
	if ev.TurnID == "" || ev.TurnStatus == "" {
		return
	}
	// The turn in flight is recorded here, in the event's order, before anything runs: a
	// crash from now on leaves it for the next start (recover.go).
	switch ev.TurnStatus {
	case model.TurnInProgress, model.TurnCompleted:
		t := model.MarkerTurn{Author: ev.Thread, Turn: ev.TurnID, Completed: ev.TurnStatus == model.TurnCompleted, UpdatedAt: s.opts.Now()}
		if err := s.deps.Store.PutMarkerTurn(t); err != nil {
			fmt.Fprintf(s.opts.Log, "marker turn %s of %s: %v\n", ev.TurnID, ev.Thread, err)
		}
	default:
		s.settleTurn(ev.Thread, ev.TurnID) // its blocks never run
	}
	if ev.TurnStatus == model.TurnCompleted {
		s.fault(faultMarkerTurnCompleted)
		go s.turnCompleted(ev.Thread, ev.TurnID)
	}
}

// PendingReads counts the polls and waits queued or running (0 before Start).
func (s *Service) PendingReads() int {
	if s.engine == nil {
		return 0
	}
	return s.engine.PendingReads()
}

// AuthorCancelled abandons an author's runs when `thread cancel` names it.
func (s *Service) AuthorCancelled(id model.ThreadID) {
	if s.engine != nil {
		s.engine.AuthorCancelled(id)
	}
}

func (s *Service) turnCompleted(author model.ThreadID, turn string) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeoutMarkers)
	defer cancel()
	if rec, err := s.deps.Store.Thread(author); err == nil && rec.Goal && !s.isHandoffTask(author) {
		s.settleTurn(author, turn)
		return // goal threads never parse blocks; a handoff task's are read to be refused
	}
	out, err := s.turnOutput(ctx, author, turn)
	if err != nil {
		// The turn stays in flight in the store: the next start reads it again.
		fmt.Fprintf(s.opts.Log, "marker blocks of %s turn %s: read output: %v\n", author, turn, err)
		return
	}
	if !s.engine.TurnCompleted(author, turn, out) {
		s.settleTurn(author, turn) // no blocks: nothing to plan
	}
}

func (s *Service) settleTurn(author model.ThreadID, turn string) {
	if err := s.deps.Store.SettleMarkerTurn(author, turn); err != nil {
		fmt.Fprintf(s.opts.Log, "marker turn %s of %s: %v\n", turn, author, err)
	}
}

// turnOutput joins the assistant messages of one turn: the App Server's items of a native
// thread, the transcript of an external one.
func (s *Service) turnOutput(ctx context.Context, id model.ThreadID, turn string) (string, error) {
	hs, err := s.opts.Threads.Harness(ctx, id)
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

// deliverReport queues the report as a message on the watch delivery path: the text in a
// 0600 file, the run marked reported and the notification written in one transaction.
func (s *Service) deliverReport(run model.MarkerRun, text string) error {
	name := markerMessagePrefx + run.ID
	if err := s.deps.Watch.WriteMessage(name, text); err != nil {
		return err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	now := s.opts.Now()
	w := model.Watch{V: 1, ID: id.String(), Thread: run.Author, Notify: string(run.Author), State: model.WatchPending,
		RegisteredAt: now, Deadline: now, DueAt: now, NextAttempt: now, UpdatedAt: now, MessageFile: name,
		Reason: "marker report of turn " + run.Turn}
	if err := s.deps.Store.ReportMarkerRun(run, w); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil // reported (or abandoned) already: exactly once
		}
		return err
	}
	s.deps.Watch.Adopt(w)
	return nil
}

// worktreeRoot is where created threads get their own worktrees: [markers] worktree_dir, else
// the home's worktrees folder.
func (s *Service) worktreeRoot() string {
	if dir := s.opts.Config().Markers.WorktreeDir; dir != "" {
		return dir
	}
	return filepath.Join(s.opts.Home, "worktrees")
}

// isHandoffTask reports whether a thread is a handoff task's (a leaf for marker blocks); a
// store that cannot say counts as yes.
func (s *Service) isHandoffTask(id model.ThreadID) bool {
	_, err := s.deps.Store.Task(id)
	return !errors.Is(err, store.ErrNotFound)
}
