package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// NativeOptions configures the Codex harness.
type NativeOptions struct {
	// Start spawns and initializes an App Server. It is called lazily on first need and again
	// after the previous process died.
	Start func(ctx context.Context) (*appserver.Client, error)
	// OnEvent receives status changes in order, from one goroutine at a time, never while the
	// harness holds a lock (so it may call back into the harness).
	OnEvent func(Event)
	Now     func() time.Time
	// Approval and Sandbox are passed to thread/start; empty leaves the App Server's defaults.
	Approval string
	Sandbox  string
	// Conn is what the tool shells of each thread get to reach the runtime
	// (native_shellenv.go); its zero value gives them nothing.
	Conn Env
	// ThreadTools attaches codexhost's MCP server to every thread started or resumed, with the
	// thread's own token (native_threadtools.go); it needs Conn.
	ThreadTools bool
	// Approvals answers the approval requests of threads whose policy asks (nil: none are
	// answered, as under approval policy never).
	Approvals AskApproval
	// Hide lists the paths no thread's commands may read (native_confine.go): the codexhost
	// home, Codex's credentials and sessions. nil confines nothing beyond the sandbox mode.
	Hide func() []string
	// SecretEnv names variables of the App Server's environment that no thread's tool shells
	// may see although no default exclude catches them: the env_key of each provider profile,
	// which the App Server reads to reach the model.
	SecretEnv []string
}

// Native runs threads in the official Codex App Server.
//
// Live status comes from the notifications of the App Server process this harness started:
// only threads loaded in that process are tracked; every other thread is read from disk and
// reports notLoaded. A process that dies takes its loaded threads with it: they report
// notLoaded, and a turn that was running ends as interrupted.
type Native struct {
	opts NativeOptions

	// startSem serializes starting the App Server; a channel so that waiting honours ctx.
	startSem chan struct{}
	// life ends at Close and cuts short a start under way.
	life    context.Context
	endLife context.CancelFunc

	mu      sync.Mutex
	closed  bool
	conn    *nativeConn
	threads map[model.ThreadID]*nativeThread // loaded in conn's process
	sending map[model.ThreadID]bool          // a Send is between its checks and turn/start
	// policies are the sandbox and approval of the threads this runtime started or resumed
	// (native_policy.go), kept across unloads.
	policies map[model.ThreadID]ThreadPolicy
	stream   streamBuffer // assistant text not yet sent (native_stream.go)
	models   sync.Map     // thread → the model Codex chose for it (native_usage.go)

	// Events wait here for the single dispatcher, so they reach OnEvent in the order the
	// state changed even when different goroutines changed it.
	events      []Event
	dispatching bool
}

// nativeConn is one App Server process and the goroutine that follows its notifications.
type nativeConn struct {
	c       *appserver.Client
	watched chan struct{} // closed when the watcher has retired the process
}

// nativeThread is the live state of a thread loaded in the current App Server process.
type nativeThread struct {
	status  string // model.Thread*
	waiting bool   // activeFlags has waitingOnApproval
	turnID  string // the active turn; "" when none is known
	// pending is the idle/systemError status announced before turn/completed; it applies
	// when the turn ends, so the thread never reads idle while its turn still counts as running.
	pending string
	// lastEnded is the turn whose end was already reported: a turn/start response can arrive
	// after the turn's notifications and must not revive it.
	lastEnded string
	// progress counts the items of the active turn, from item/started (native_progress.go).
	progress model.TurnProgress
}

// Confinement is what keeps this harness's threads from the secrets (NativeOptions.Hide and
// SecretEnv), for another Codex harness of the same runtime to apply.
func (n *Native) Confinement() (hide func() []string, secretEnv []string) {
	return n.opts.Hide, n.opts.SecretEnv
}

func (t *nativeThread) busy() bool { return t.turnID != "" || t.status == model.ThreadActive }

var _ Harness = (*Native)(nil)

// NewNative returns the Codex harness. Nothing is started until the first call needs it.
func NewNative(opts NativeOptions) *Native {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	life, endLife := context.WithCancel(context.Background())
	return &Native{
		opts:     opts,
		startSem: make(chan struct{}, 1),
		life:     life,
		endLife:  endLife,
		threads:  map[model.ThreadID]*nativeThread{},
		sending:  map[model.ThreadID]bool{},
		stream:   streamBuffer{window: DeltaWindow},
	}
}

// Name is the harness name, "codex".
func (n *Native) Name() string { return model.NativeHarness }

// Kind is model.HarnessNative.
func (n *Native) Kind() string { return model.HarnessNative }

// Client returns the running App Server client, starting it or replacing a dead one first.
// Concurrent callers share one start. Take a fresh client per use: after a restart the old
// one is closed.
func (n *Native) Client(ctx context.Context) (*appserver.Client, error) {
	if c := n.liveClient(); c != nil {
		return c, nil
	}
	select {
	case n.startSem <- struct{}{}:
	case <-ctx.Done():
		return nil, nativeMapErr(ctx.Err(), "")
	}
	defer func() { <-n.startSem }()

	n.mu.Lock()
	closed, old := n.closed, n.conn
	n.mu.Unlock()
	if closed {
		return nil, nativeClosedErr()
	}
	if old != nil {
		if nativeAlive(old.c) {
			return old.c, nil
		}
		// Let the old watcher report the death before the new process reports anything, so
		// that no stale notLoaded follows a fresh status.
		select {
		case <-old.watched:
		case <-ctx.Done():
			return nil, nativeMapErr(ctx.Err(), "")
		}
	}
	if n.opts.Start == nil {
		return nil, model.Errorf(model.CodeAppServerUnavailable, "configure the codex binary (codex_bin in config.toml)", "no Codex App Server is configured")
	}
	startCtx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(n.life, cancel)()
	c, err := n.opts.Start(startCtx)
	cancel()
	if err != nil {
		var me *model.Error
		if errors.As(err, &me) {
			return nil, me
		}
		return nil, model.Errorf(model.CodeAppServerUnavailable, "run `codexhost doctor` to check the Codex installation", "start the Codex App Server: %v", err)
	}
	handleApprovals(c, n.opts.Approvals)
	notes, stop := c.Subscribe(nativeTracked)
	conn := &nativeConn{c: c, watched: make(chan struct{})}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		stop()
		_ = c.Close()
		return nil, nativeClosedErr()
	}
	n.conn = conn
	n.threads = map[model.ThreadID]*nativeThread{}
	n.mu.Unlock()
	go n.watch(conn, notes, stop)
	return c, nil
}

func (n *Native) liveClient() *appserver.Client {
	n.mu.Lock()
	conn := n.conn
	n.mu.Unlock()
	if conn != nil && nativeAlive(conn.c) {
		return conn.c
	}
	return nil
}

func nativeAlive(c *appserver.Client) bool {
	select {
	case <-c.Done():
		return false
	default:
		return true
	}
}

func nativeClosedErr() error {
	return model.Errorf(model.CodeAppServerUnavailable, "the runtime is shutting down; retry once it is running again", "the Codex harness is closed")
}

// tracked returns a copy of the live state of a thread loaded in c's process.
func (n *Native) tracked(c *appserver.Client, id model.ThreadID) (nativeThread, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil || n.conn.c != c {
		return nativeThread{}, false
	}
	t := n.threads[id]
	if t == nil {
		return nativeThread{}, false
	}
	return *t, true
}

// Start creates a thread. It has no turn yet, so the App Server keeps it only in memory until
// the first Send.
func (n *Native) Start(ctx context.Context, req StartRequest) (model.ThreadID, error) {
	if err := checkEffort(req.Effort); err != nil {
		return "", err
	}
	c, err := n.Client(ctx)
	if err != nil {
		return "", err
	}
	params := appserver.ThreadStartParams{
		Cwd:            req.Cwd,
		Model:          req.Model,
		ApprovalPolicy: firstSet(req.Approval, n.opts.Approval),
		Sandbox:        firstSet(req.Sandbox, n.opts.Sandbox),
		Config:         thinkingConfig(req.Thinking),
	}
	if e := CodexEffort(req.Effort); e != "" && req.Thinking == "" {
		// Codex keeps the override in the thread's rollout: a resumed thread keeps its effort.
		params.Config = map[string]any{"model_reasoning_effort": e}
	}
	bind := n.shellEnv(&params, req.Cwd)
	mode, network, err := n.confine(ctx, c, &params)
	if err != nil {
		return "", err
	}
	res, err := c.ThreadStart(ctx, params)
	if err != nil {
		var rpc *appserver.RPCError
		if errors.As(err, &rpc) {
			return "", model.Errorf(model.CodeFailedPrecondition, "check the working directory and the model name; the App Server log may say more",
				"Codex could not start a thread: %s", rpc.Message)
		}
		return "", nativeMapErr(err, "")
	}
	id := model.ThreadID(res.Thread.ID)
	bind(id)
	n.noteModel(id, res.Model)
	n.name(ctx, c, id, req.Title)
	pol := policyFrom(res.Sandbox, res.ApprovalPolicy)
	if mode != "" {
		pol.Sandbox, pol.Network = mode, network // under a profile the legacy field says little
	}
	n.setPolicy(id, pol)
	n.mu.Lock()
	if n.conn != nil && n.conn.c == c && n.threads[id] == nil {
		n.threads[id] = &nativeThread{status: nativeStatus(res.Thread.Status.Type)}
	}
	n.mu.Unlock()
	return id, nil
}

// name gives a new thread its title. A thread without a title still works, so a refusal
// only leaves it unnamed, as Codex shows a thread nobody named.
func (n *Native) name(ctx context.Context, c *appserver.Client, id model.ThreadID, title string) {
	if title == "" {
		return
	}
	_ = c.ThreadSetName(ctx, string(id), title)
}

// CodexEffort maps a thread's effort to Codex's model_reasoning_effort, whose values are
// minimal, low, medium, high and xhigh. Codex passes an unknown value on to the model
// unchanged, so "max" becomes xhigh, the highest Codex knows, rather than a value the model
// would refuse.
func CodexEffort(effort string) string {
	if effort == "max" {
		return "xhigh"
	}
	return effort
}

const nativeBusyHint = "wait for the running turn to finish (`codexhost thread wait`) or cancel it (`codexhost thread cancel`), then send again"

func nativeBusy(id model.ThreadID) error {
	return model.Errorf(model.CodeThreadBusy, nativeBusyHint, "thread %s has a turn running", id)
}

// Send starts a turn. It refuses with THREAD_BUSY rather than call turn/start on an active
// thread, which would steer the running turn instead of starting one.
func (n *Native) Send(ctx context.Context, id model.ThreadID, text string) (string, error) {
	turnID, started, err := n.send(ctx, id, text, nil)
	if err != nil && !started {
		return "", NotStarted(err)
	}
	return turnID, err
}

// send reports with started=true a failure whose outcome is unknown: turn/start was sent and
// no answer from the App Server says it was refused.
func (n *Native) send(ctx context.Context, id model.ThreadID, text string, sandboxPolicy any) (turnID string, started bool, err error) {
	if strings.TrimSpace(text) == "" {
		return "", false, model.Errorf(model.CodeInvalidArgument, "give the message text", "the message is empty")
	}
	c, err := n.Client(ctx)
	if err != nil {
		return "", false, err
	}
	// Reserve the thread so that a concurrent Send cannot pass the same checks.
	n.mu.Lock()
	if n.sending[id] {
		n.mu.Unlock()
		return "", false, nativeBusy(id)
	}
	if t := n.threads[id]; t != nil && n.conn != nil && n.conn.c == c && t.busy() {
		n.mu.Unlock()
		return "", false, nativeBusy(id)
	}
	n.sending[id] = true
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.sending, id)
		n.mu.Unlock()
	}()

	// thread/read gives the live status of a loaded thread, and tells a thread that must be
	// resumed first (notLoaded) from one that does not exist.
	th, err := nativeThreadRead(ctx, c, id)
	if err != nil {
		return "", false, nativeMapErr(err, id)
	}
	resumed := false
	switch th.Status.Type {
	case appserver.StatusActive:
		return "", false, nativeBusy(id)
	case appserver.StatusNotLoaded:
		if err := n.resume(ctx, c, id, th); err != nil {
			return "", false, err
		}
		resumed = true
	}
	turn, err := c.TurnStart(ctx, appserver.TurnStartParams{ThreadID: string(id), Input: appserver.TextInput(text), SandboxPolicy: sandboxPolicy})
	if err != nil && !resumed && appserver.RPCHas(err, "thread not found") {
		// Unloaded between thread/read and turn/start.
		if err := n.resume(ctx, c, id, th); err != nil {
			return "", false, err
		}
		turn, err = c.TurnStart(ctx, appserver.TurnStartParams{ThreadID: string(id), Input: appserver.TextInput(text), SandboxPolicy: sandboxPolicy})
	}
	if err != nil {
		// An error answer is the App Server refusing the turn; anything else (exit, timeout)
		// leaves it unknown whether the turn started.
		var rpcErr *appserver.RPCError
		return "", !errors.As(err, &rpcErr), nativeMapErr(err, id)
	}
	n.mu.Lock()
	if n.conn != nil && n.conn.c == c {
		n.turnStartedLocked(id, turn.ID)
	}
	n.mu.Unlock()
	return turn.ID, true, nil
}

// resume loads a stored thread into this App Server, which turn/start requires.
func (n *Native) resume(ctx context.Context, c *appserver.Client, id model.ThreadID, th appserver.Thread) error {
	res, err := c.ThreadResume(ctx, appserver.ThreadResumeParams{ThreadID: string(id), ExcludeTurns: true, Config: n.resumeConfig(id, th.Cwd)})
	switch {
	case err == nil:
		n.noteModel(id, res.Model)
		if _, known := n.PolicyOf(id); !known {
			n.setPolicy(id, policyFrom(res.Sandbox, res.ApprovalPolicy))
		}
		return nil
	case appserver.RPCHas(err, "active writer"):
		return model.Errorf(model.CodeFailedPrecondition, "finish or close the thread in that Codex process, then send again",
			"thread %s is open in another Codex process, which holds it for writing", id)
	case th.Path != nil && strings.Contains(*th.Path, "archived_sessions"):
		return model.Errorf(model.CodeFailedPrecondition, "unarchive the thread first", "thread %s is archived", id)
	}
	return nativeMapErr(err, id)
}

// Owns reports whether the App Server knows the thread.
func (n *Native) Owns(ctx context.Context, id model.ThreadID) bool {
	c, err := n.Client(ctx)
	if err != nil {
		return false
	}
	_, err = nativeThreadRead(ctx, c, id)
	return err == nil
}

// Active lists the threads with a running turn in this harness's App Server process.
func (n *Native) Active() []model.ThreadID {
	n.mu.Lock()
	defer n.mu.Unlock()
	var ids []model.ThreadID
	for id, t := range n.threads {
		if t.busy() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Close stops the App Server; turns still running die with it. No events follow Close.
func (n *Native) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.endLife()
	// A start already under way sees closed when it ends and stops its App Server; wait for
	// it, so that no process outlives Close.
	n.startSem <- struct{}{}
	defer func() { <-n.startSem }()
	n.mu.Lock()
	conn := n.conn
	n.conn = nil
	n.threads = map[model.ThreadID]*nativeThread{}
	n.mu.Unlock()
	if conn == nil {
		return nil
	}
	err := conn.c.Close()
	<-conn.watched
	return err
}

// nativeMapErr turns App Server failures into the error codes of the CLI contract.
func nativeMapErr(err error, id model.ThreadID) error {
	if err == nil {
		return nil
	}
	var me *model.Error
	if errors.As(err, &me) {
		return me
	}
	const unavailableHint = "retry: the App Server is restarted on the next call; if this persists, check its log and run `codexhost doctor`"
	switch {
	case errors.Is(err, appserver.ErrExited):
		return model.Errorf(model.CodeAppServerUnavailable, unavailableHint, "the Codex App Server exited: %v", err)
	case errors.Is(err, context.DeadlineExceeded):
		return model.Errorf(model.CodeAppServerUnavailable, unavailableHint, "the Codex App Server did not answer in time: %v", err)
	case errors.Is(err, context.Canceled):
		return err
	}
	if appserver.IsRPC(err) {
		if id != "" && appserver.UnknownThread(err) {
			return model.Errorf(model.CodeThreadNotFound, "check the id with `codexhost thread list`", "no Codex thread %s", id)
		}
		return model.Errorf(model.CodeInternal, "see the App Server log; run `codexhost doctor` if it persists", "%v", err)
	}
	return model.AsError(fmt.Errorf("codex app-server: %w", err))
}
