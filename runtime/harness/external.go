package harness

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
)

// ExternalConfig is one [harnesses.NAME] table of config.toml.
type ExternalConfig struct {
	Name    string
	Command []string          // argv; the prompt goes to stdin, the answer comes from stdout
	Cwd     string            // default working directory of threads that name none
	Env     map[string]string // extra variables; CODEXHOST_* names are refused
	Timeout time.Duration     // per turn; 0 means none
}

// ExternalOptions are what the runtime gives every external harness.
type ExternalOptions struct {
	// TranscriptDir holds one <threadID>.jsonl file per thread. Several harnesses may share it:
	// each file records the harness that owns the thread.
	TranscriptDir string
	// BaseEnv is the inherited part of every turn's environment, normally
	// BaseEnv(os.Environ(), passthrough). Nil means the process inherits nothing.
	BaseEnv []string
	// Conn is how turn processes reach the runtime.
	Conn Env
	// OnEvent receives thread and turn changes, in order, never under a lock of the harness.
	// It may call back into the harness, except Close, which waits for deliveries to end.
	OnEvent func(Event)
	// Now is the clock of recorded times; time.Now when nil.
	Now func() time.Time
	// Logger gets a line per finished turn, with the tail of stderr for turns that did not
	// complete. Stderr is never recorded in transcripts (only its usage line is read). Nil
	// discards stderr.
	Logger *slog.Logger
}

// Limits of what a turn process may produce.
const (
	// extMaxOutput bounds the assistant message taken from stdout; the rest is dropped.
	extMaxOutput = 4 << 20
	// extStderrTail is how much of stderr is kept for the log.
	extStderrTail = 4 << 10
	// extKillGrace is how long a process group has between SIGTERM and SIGKILL.
	extKillGrace = 2 * time.Second
	// extPipeGrace is how long output is still read after the process group is gone: only a
	// process that left the group can hold the pipe that long.
	extPipeGrace = 2 * time.Second
)

// extTruncatedMarker ends an assistant message cut at extMaxOutput.
const extTruncatedMarker = "\n[output truncated: %d more bytes]"

// Reasons a run was stopped before its process ended by itself.
const (
	extStopCancel  = "cancel"
	extStopClose   = "close"
	extStopTimeout = "timeout"
)

// External runs every turn of a thread as one process of a configured command.
type External struct {
	cfg       ExternalConfig
	opts      ExternalOptions
	killGrace time.Duration

	mu         sync.Mutex
	threads    map[model.ThreadID]*extThread
	closed     bool
	events     []Event // waiting for delivery, in order
	delivering bool    // a goroutine is delivering events; others only queue

	runs sync.WaitGroup
}

var _ Harness = (*External)(nil)

// extThread is a thread in memory. st and run are guarded by External.mu.
type extThread struct {
	path string
	st   *transcriptState
	run  *extRun // the running turn; nil when idle
}

// extRun is a turn from Send until its end is recorded.
type extRun struct {
	turnID string
	stop   chan struct{} // closed to stop the process early
	reason string        // why stop was closed; guarded by External.mu
	done   chan struct{} // closed once the turn's end is recorded and announced
}

// NewExternal checks cfg and prepares the transcript directory. Threads recorded there by an
// earlier runtime are loaded when first asked for.
func NewExternal(cfg ExternalConfig, opts ExternalOptions) (*External, error) {
	hint := "fix [harnesses." + cfg.Name + "] in config.toml"
	switch {
	case cfg.Name == "":
		return nil, model.Errorf(model.CodeInvalidArgument, "give every external harness a name", "external harness without a name")
	case len(cfg.Command) == 0 || cfg.Command[0] == "":
		return nil, model.Errorf(model.CodeInvalidArgument, hint, "harness %s has no command", cfg.Name)
	case cfg.Timeout < 0:
		return nil, model.Errorf(model.CodeInvalidArgument, hint, "harness %s has a negative timeout", cfg.Name)
	case opts.TranscriptDir == "":
		return nil, fmt.Errorf("harness %s: no transcript directory", cfg.Name)
	}
	env := make(map[string]string, len(cfg.Env))
	for k, v := range cfg.Env {
		switch {
		case !procenvValidName(k) || strings.ContainsRune(v, 0):
			return nil, model.Errorf(model.CodeInvalidArgument, hint, "harness %s: invalid env variable %q", cfg.Name, k)
		case procenvReserved(k):
			return nil, model.Errorf(model.CodeInvalidArgument, hint+"; CODEXHOST_* variables are set by the runtime",
				"harness %s: env variable %s is reserved", cfg.Name, k)
		}
		env[k] = v
	}
	cfg.Env = env
	cfg.Command = append([]string(nil), cfg.Command...)
	dir, err := filepath.Abs(opts.TranscriptDir)
	if err != nil {
		return nil, err
	}
	if err := transcriptEnsureDir(dir); err != nil {
		return nil, err
	}
	opts.TranscriptDir = dir
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &External{cfg: cfg, opts: opts, killGrace: extKillGrace, threads: map[model.ThreadID]*extThread{}}, nil
}

// Name is the configured harness name.
func (x *External) Name() string { return x.cfg.Name }

// Kind is model.HarnessExternal.
func (x *External) Kind() string { return model.HarnessExternal }

// now is the recording clock, in UTC and without a monotonic reading so that what is in memory
// equals what a reload parses.
func (x *External) now() time.Time { return x.opts.Now().UTC().Round(0) }

func extNewID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("new id: %w", err)
	}
	return u.String(), nil
}

func (x *External) notFound(id model.ThreadID) error {
	return model.Errorf(model.CodeThreadNotFound, "check the id; `codexhost thread list` shows the threads",
		"no thread %s in harness %s", id, x.cfg.Name)
}

func (x *External) closedErr() error {
	return model.Errorf(model.CodeFailedPrecondition, "the runtime is shutting down; retry once it runs again",
		"harness %s is closed", x.cfg.Name)
}

// extCanonical reports whether id is a canonical thread id, which also keeps it from naming a
// path outside the transcript directory.
func extCanonical(id model.ThreadID) bool {
	p, err := model.ParseThreadID(string(id))
	return err == nil && p == id
}

// Start records a new idle thread. Its working directory is the requested one, else the
// configured one, else the runtime's.
func (x *External) Start(ctx context.Context, req StartRequest) (model.ThreadID, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = x.cfg.Cwd
	}
	cwd, err := filepath.Abs(cwd) // "" gives the runtime's working directory
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", model.Errorf(model.CodeInvalidArgument, "give an existing directory as cwd", "cwd %s is not a directory", cwd)
	}
	if err := checkEffort(req.Effort); err != nil {
		return "", err
	}
	x.mu.Lock()
	closed := x.closed
	x.mu.Unlock()
	if closed {
		return "", x.closedErr()
	}
	sid, err := extNewID()
	if err != nil {
		return "", err
	}
	id := model.ThreadID(sid)
	st, err := transcriptCreate(x.opts.TranscriptDir, transcriptEntry{V: transcriptVersion, Type: transcriptThread,
		ID: sid, Harness: x.cfg.Name, Cwd: cwd, Model: req.Model, Effort: cmp.Or(req.Effort, req.Thinking), At: x.now()})
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	x.threads[id] = &extThread{path: transcriptPath(x.opts.TranscriptDir, id), st: st}
	x.mu.Unlock()
	return id, nil
}

// thread returns the thread in memory, loading it from its transcript when this runtime has
// not seen it yet. Loading writes nothing.
func (x *External) thread(id model.ThreadID) (*extThread, error) {
	if !extCanonical(id) {
		return nil, x.notFound(id)
	}
	x.mu.Lock()
	th := x.threads[id]
	x.mu.Unlock()
	if th != nil {
		return th, nil
	}
	path := transcriptPath(x.opts.TranscriptDir, id)
	st, err := transcriptLoad(path, id)
	if transcriptIsNotExist(err) {
		return nil, x.notFound(id)
	}
	if err != nil {
		return nil, err
	}
	if st.Harness != x.cfg.Name {
		return nil, x.notFound(id)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if th := x.threads[id]; th != nil { // loaded concurrently; keep the one others may hold
		return th, nil
	}
	th = &extThread{path: path, st: st}
	x.threads[id] = th
	return th, nil
}

// Owns reports whether the thread is this harness's, reading at most the first line of its
// transcript.
func (x *External) Owns(_ context.Context, id model.ThreadID) bool {
	if !extCanonical(id) {
		return false
	}
	x.mu.Lock()
	_, ok := x.threads[id]
	x.mu.Unlock()
	if ok {
		return true
	}
	meta, err := transcriptReadMeta(transcriptPath(x.opts.TranscriptDir, id))
	return err == nil && meta.ID == string(id) && meta.Harness == x.cfg.Name
}

// Send starts a turn: it records the user message, starts the command and returns; the turn
// runs in the background and its end is recorded and announced when the process ends.
func (x *External) Send(ctx context.Context, id model.ThreadID, text string) (string, error) {
	turnID, err := x.send(ctx, id, text)
	if err != nil {
		// Every failure happens before the command received the prompt: no turn ran.
		return "", NotStarted(err)
	}
	return turnID, nil
}

func (x *External) send(ctx context.Context, id model.ThreadID, text string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", model.Errorf(model.CodeInvalidArgument, "give the message as --message TEXT or on stdin", "message is empty")
	}
	th, err := x.thread(id)
	if err != nil {
		return "", err
	}
	turnID, err := extNewID()
	if err != nil {
		return "", err
	}
	run := &extRun{turnID: turnID, stop: make(chan struct{}), done: make(chan struct{})}

	// Reserve the thread; the rest of Send does I/O without the lock.
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return "", x.closedErr()
	}
	if cur := th.run; cur != nil {
		x.mu.Unlock()
		return "", model.Errorf(model.CodeThreadBusy,
			fmt.Sprintf("wait for the turn to end with `codexhost thread wait %s`, then send", id),
			"thread %s is running turn %s", id, cur.turnID).WithDetail("turnId", cur.turnID)
	}
	th.run = run
	x.runs.Add(1)
	pending := th.st.pendingEnds()
	size, cwd, effort := th.st.size, th.st.Cwd, th.st.Effort
	x.mu.Unlock()

	launched := false
	defer func() {
		if !launched {
			x.mu.Lock()
			th.run = nil
			x.mu.Unlock()
			close(run.done)
			x.runs.Done()
		}
	}()

	// Turns cut short by a runtime stop get their end written before anything new.
	if len(pending) > 0 {
		n, err := transcriptAppend(th.path, size, pending, true)
		if err != nil {
			return "", err
		}
		x.mu.Lock()
		for _, e := range pending {
			th.st.apply(e)
		}
		th.st.size, size = n, n
		x.mu.Unlock()
	}

	p, err := x.startProcess(id, cwd, effort)
	if err != nil {
		return "", model.Errorf(model.CodeFailedPrecondition,
			fmt.Sprintf("check command and cwd of [harnesses.%s] in config.toml and the thread's cwd", x.cfg.Name),
			"harness %s cannot start its command: %v", x.cfg.Name, err)
	}
	at := x.now()
	entries := []transcriptEntry{
		{V: transcriptVersion, Type: transcriptTurnStarted, TurnID: turnID, At: at},
		{V: transcriptVersion, Type: transcriptMessage, TurnID: turnID, Role: model.RoleUser, Text: strings.ToValidUTF8(text, "\uFFFD"), At: at},
	}
	n, err := transcriptAppend(th.path, size, entries, true)
	if err != nil {
		p.abandon()
		return "", err
	}
	x.mu.Lock()
	for _, e := range entries {
		th.st.apply(e)
	}
	th.st.size = n
	x.queueLocked(Event{Thread: id, Status: model.ThreadActive, TurnID: turnID, TurnStatus: model.TurnInProgress, At: at})
	x.mu.Unlock()
	x.flushEvents()

	launched = true
	go x.runTurn(id, th, run, p, text)
	return turnID, nil
}

// Cancel stops the running turn and waits until its end is recorded (or ctx ends).
func (x *External) Cancel(ctx context.Context, id model.ThreadID) (string, error) {
	th, err := x.thread(id)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	run := th.run
	if run == nil {
		x.mu.Unlock()
		return "", model.Errorf(model.CodeFailedPrecondition,
			fmt.Sprintf("nothing to cancel; read the result with `codexhost thread read %s`", id),
			"thread %s has no running turn", id)
	}
	x.stopLocked(run, extStopCancel)
	x.mu.Unlock()
	select {
	case <-run.done:
	case <-ctx.Done():
	}
	return run.turnID, nil
}

// stopLocked stops run once; the first reason given is the one recorded.
func (x *External) stopLocked(run *extRun, reason string) {
	if run.reason == "" {
		run.reason = reason
		close(run.stop)
	}
}

// Read returns what is known of the thread, from memory backed by its transcript.
func (x *External) Read(_ context.Context, id model.ThreadID, req ReadRequest) (Snapshot, error) {
	th, err := x.thread(id)
	if err != nil {
		return Snapshot{}, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	st := th.st
	info := model.ThreadInfo{
		ID: string(id), Link: id.Link(), Harness: x.cfg.Name, Status: model.ThreadIdle,
		Cwd: st.Cwd, Model: st.Model, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt,
		// The command gets the effort (CODEXHOST_EFFORT) and its config.toml entry's model.
		Configuration: model.NewConfiguration(st.Model, st.Effort),
	}
	if th.run != nil {
		info.Status = model.ThreadActive
	}
	if t := st.lastTurn(); t != nil {
		info.LastTurn = t.summary()
	}
	info.Title = st.title()
	snap := Snapshot{Info: info, Result: st.result()}
	if req.Messages {
		msgs, next, err := st.page(req.Limit, req.Cursor)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Messages, snap.NextCursor = msgs, next
	}
	return snap, nil
}

// Active lists the threads with a running turn, sorted.
func (x *External) Active() []model.ThreadID {
	x.mu.Lock()
	defer x.mu.Unlock()
	var ids []model.ThreadID
	for id, th := range x.threads {
		if th.run != nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Close interrupts every running turn and waits until their ends are recorded. Start and Send
// fail afterwards; Read still works.
func (x *External) Close() error {
	x.mu.Lock()
	x.closed = true
	for _, th := range x.threads {
		if th.run != nil {
			x.stopLocked(th.run, extStopClose)
		}
	}
	x.mu.Unlock()
	x.runs.Wait()
	return nil
}

// queueLocked adds an event for delivery by flushEvents.
func (x *External) queueLocked(e Event) {
	if x.opts.OnEvent != nil {
		x.events = append(x.events, e)
	}
}

// flushEvents delivers queued events without holding the lock. Only one goroutine delivers at
// a time, so events arrive in the order they were queued; the others leave their events to it.
func (x *External) flushEvents() {
	x.mu.Lock()
	if x.delivering || len(x.events) == 0 {
		x.mu.Unlock()
		return
	}
	x.delivering = true
	defer func() {
		// Also on a panic in OnEvent, so that later events are not stuck behind it.
		x.delivering = false
		x.mu.Unlock()
	}()
	for len(x.events) > 0 {
		batch := x.events
		x.events = nil
		x.mu.Unlock()
		x.deliver(batch)
		x.mu.Lock()
	}
}

// deliver re-takes the lock when OnEvent panics, so that flushEvents' deferred cleanup holds it.
func (x *External) deliver(batch []Event) {
	ok := false
	defer func() {
		if !ok {
			x.mu.Lock()
		}
	}()
	for _, e := range batch {
		x.opts.OnEvent(e)
	}
	ok = true
}
