// Package runtime is the host runtime: one Host owns the store, the harnesses and the runtime
// API that the CLI, the terminal app and harness processes talk to.
package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/approvals"
	"github.com/codexhost/codexhost/runtime/auth"
	"github.com/codexhost/codexhost/runtime/codexsetup"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/fleet"
	"github.com/codexhost/codexhost/runtime/follow"
	"github.com/codexhost/codexhost/runtime/handoff"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/marker"
	"github.com/codexhost/codexhost/runtime/nodeserve"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/runtime/supervise"
	"github.com/codexhost/codexhost/runtime/threads"
	"github.com/codexhost/codexhost/runtime/watch"
	"github.com/codexhost/codexhost/store"
)

// SocketName is the runtime's Unix socket inside the home.
const SocketName = api.SocketName

// prestartTimeout bounds the App Server start begun with the runtime (Options.AppServer).
const prestartTimeout = time.Minute

// Options configure a Host.
type Options struct {
	Home    string
	Listen  string   // optional loopback TCP address for external clients and nodes
	CLIPath string   // absolute path of the codexhost binary handed to harness processes
	Environ []string // the runtime's own environment; harnesses get a whitelist of it
	Version string
	// Follow lets OpenOrFollow start a follower when another runtime holds the home; it
	// authenticates there as the home's operator, by its user and process.
	Follow bool
	// OneShot is a runtime embedded for one command: it starts no background work that the
	// command's exit would cut short, and keeps what it read (the catalog's title index).
	OneShot bool
	// AppServer starts the native App Server with the runtime rather than on first use: the
	// one command this runtime serves needs it (harness.Native.Prestart).
	AppServer bool
	Now       func() time.Time
	// TaskAfter is the clock of handoff tasks' timeouts (time.After when nil; tests inject one).
	TaskAfter func(time.Duration) <-chan time.Time
	Log       io.Writer
}

// Host is a running runtime.
type Host struct {
	opts         Options
	store        *store.Store
	server       *api.Server
	runtimeToken string          // the runtime's own, for callers inside this process
	agents       *harness.Tokens // the tokens of agents, each bound to a thread
	auth         *auth.Authenticator

	endpoints endpointList

	// A follower forwards every request to the runtime holding the home until it takes the
	// store over (runtime/follow). promoted receives once: nil when the host is (or became)
	// the primary, else why taking over failed.
	follower   atomic.Pointer[follow.Follower]
	promoted   chan error
	stopFollow context.CancelFunc
	followDone chan struct{}

	live *config.Live // config.toml, reread when it changed

	launch codexsetup.Launcher // how this runtime's App Servers start

	harnesses harness.Set // set once the host holds its home (startHarnesses)
	native    *harness.Native
	// nativeEnv is the environment the native App Server starts with (a provider profile's
	// key must be in it).
	nativeEnv []string
	// stopPrestart ends and waits for the App Server start begun with the runtime.
	stopPrestart func()

	events api.Hub // the runtime's events, to every subscriber

	watch     *watch.Engine
	stopWatch context.CancelFunc
	// stopApprovals ends the approvals' expiry sweep.
	stopApprovals context.CancelFunc

	fleet *fleet.Service // the fleet catalog and its methods (runtime/fleet)

	supervise *supervise.Service // supervised threads of continue (runtime/supervise, wired in runtime/wire.go)

	threads *threads.Service // the thread methods (runtime/threads, wired in runtime/wire.go)
	// approvals holds native threads' approval requests (runtime/approvals).
	approvals *approvals.Registry
	// approvalsCtx ends with the holding of the store (lookups of lost approvals' outcomes).
	approvalsCtx atomic.Pointer[context.Context]

	node *nodeserve.Server // this runtime as a paired node

	handoffs *handoff.Capability // handoffs and their tasks (runtime/handoff, wired in runtime/handoffs.go)

	markers *marker.Service // marker blocks (runtime/marker, wired in runtime/markers.go)

	routes *route.Table // every runtime API method with its policy (runtime/routes.go)
}

// Open starts a runtime on opts.Home: store, config, harnesses and listeners. Serve must be
// called to accept connections.
func Open(ctx context.Context, opts Options) (*Host, error) {
	h := newHost(opts)
	st, err := store.Open(h.opts.Home, store.Options{Log: h.opts.Log})
	if err != nil {
		return nil, err
	}
	if err := h.listen(); err != nil {
		_ = st.Close()
		return nil, err
	}
	if err := h.takeStore(st); err != nil {
		h.Close()
		return nil, err
	}
	h.promoted <- nil
	return h, nil
}

func newHost(opts Options) *Host {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	h := &Host{opts: opts, runtimeToken: config.NewToken(), agents: harness.NewTokens(),
		promoted: make(chan error, 1)}
	h.live = config.NewLive(opts.Home, h.logf)
	h.launch = codexsetup.Launcher{Home: opts.Home, Version: opts.Version, Lookup: envLookup(opts.Environ)}
	h.wire() // runtime/wire.go
	return h
}

// listen loads the config and starts the server with its TCP listener, which both roles have.
func (h *Host) listen() error {
	if err := h.live.Reload(); err != nil {
		return err
	}
	h.server = api.NewServer(h, api.ServerOptions{Version: h.opts.Version, Log: h.opts.Log, InflightLimit: auth.InflightLimit,
		PrincipalLimits: auth.PrincipalLimits})
	if h.opts.Listen != "" {
		tcpEndpoint, err := h.server.ListenTCP(h.opts.Listen)
		if err != nil {
			_ = h.server.Close()
			return err
		}
		h.endpoints.set(append(h.Endpoints(), tcpEndpoint))
	}
	return nil
}

// takeStore makes the host the home's runtime on the store it just opened: the home's socket,
// the harnesses and the watch engine, which restores every watch of the home.
func (h *Host) takeStore(st *store.Store) error {
	h.store = st
	auth.RemoveOperatorTokenFile(h.opts.Home, h.logf)
	unixEndpoint, err := h.server.ListenUnix(filepath.Join(h.opts.Home, SocketName))
	if err != nil {
		return err
	}
	h.endpoints.set(append([]string{unixEndpoint}, h.Endpoints()...))
	if err := h.startHarnesses(unixEndpoint); err != nil {
		return err
	}
	if h.opts.AppServer && h.native != nil {
		h.stopPrestart = h.native.Prestart(prestartTimeout)
	}
	h.threads.Start(threads.Deps{Store: h.store, Harnesses: h.harnesses})
	sweep, stop := context.WithCancel(context.Background())
	h.stopApprovals = stop
	// Each approval lost is announced as it is restored, which starts the look-up of its
	// outcome (approvals.LookUpOutcome) until the holding of the store ends.
	h.approvalsCtx.Store(&sweep)
	if err := h.approvals.RestoreFrom(h.store.Approvals); err != nil {
		return err
	}
	go h.approvals.RunSweep(sweep)
	if err := h.startWatches(); err != nil {
		return err
	}
	return h.startMarkers()
}

func (h *Host) startHarnesses(endpoint string) error {
	cfg := h.config()
	conn := harness.Env{CLIPath: h.opts.CLIPath, Endpoint: endpoint, Tokens: h.agents}
	h.harnesses = harness.Set{}

	// The App Server sees a whitelist of our environment plus the three connection parameters,
	// with a token that proves no thread (harness.Tokens.ForProcess): every other CODEXHOST_*
	// variable is stripped by BaseEnv, and each thread's tool shells get their own thread's
	// connection instead, through the thread's config (harness/native_shellenv.go).
	appEnv := append(harness.BaseEnv(h.opts.Environ, cfg.AppServer.Passthrough), conn.Vars(h.agents.ForProcess())...)
	// The native App Server also reads the key of each [handoff.providers] profile, so that a
	// profile works as configured; every thread's tool shells are kept from it (SecretEnv).
	providerKeys := cfg.Handoff.ProviderEnvKeys()
	nativeEnv := append(harness.BaseEnv(h.opts.Environ, append(slices.Clone(cfg.AppServer.Passthrough), providerKeys...)), conn.Vars(h.agents.ForProcess())...)
	h.nativeEnv = nativeEnv
	logDir := filepath.Join(h.opts.Home, "logs")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return err
	}
	h.node.SetEnv(harness.BaseEnv(h.opts.Environ, cfg.AppServer.Passthrough))
	h.native = harness.NewNative(harness.NativeOptions{
		Start:       h.launch.Start(cfg.CodexBin, nativeEnv, filepath.Join(logDir, "app-server.log")),
		OnEvent:     h.onHarnessEvent,
		Now:         h.opts.Now,
		Conn:        conn,
		ThreadTools: cfg.AppServer.ThreadTools,
		Approvals:   h.approvals.Ask,
		Approval:    cfg.AppServer.Approval,
		Hide: func() []string {
			homes := append([]string{defaultCodexHome(envLookup(h.opts.Environ))}, h.config().Catalog.CodexHomes...)
			return harness.Secrets(h.opts.Home, SocketName, homes)
		},
		SecretEnv: providerKeys,
	})
	h.harnesses[model.NativeHarness] = h.native
	if err := h.fleet.Start(h.native, appEnv, logDir); err != nil {
		return err
	}
	if err := h.startSupervision(cfg, appEnv, logDir); err != nil {
		return err
	}

	for _, name := range cfg.HarnessNames() {
		hc := cfg.Harnesses[name]
		base := harness.ExternalEnv(h.opts.Environ, hc.EnvPassthrough)
		ext, err := harness.NewExternal(harness.ExternalConfig{Name: name, Command: hc.Command, Cwd: hc.Cwd, Env: hc.Env, Timeout: hc.Timeout.Duration}, harness.ExternalOptions{
			TranscriptDir: filepath.Join(h.opts.Home, "transcripts"),
			BaseEnv:       base,
			Conn:          conn,
			OnEvent:       h.onHarnessEvent,
			Now:           h.opts.Now,
		})
		if err != nil {
			return err
		}
		h.harnesses[name] = ext
	}
	return nil
}

// The runtime's environment, as harnesses read theirs.
var (
	envLookup        = harness.Lookup
	defaultCodexHome = harness.DefaultCodexHome
)

// Serve accepts connections until ctx ends or Close is called.
func (h *Host) Serve(ctx context.Context) error { return h.server.Serve(ctx) }

// Endpoints are the addresses the runtime listens on (unix first; a follower has no unix
// socket until it takes over).
func (h *Host) Endpoints() []string { return h.endpoints.get() }

// endpointList is the listening addresses, set as listeners start.
type endpointList struct {
	mu  sync.Mutex
	eps []string
}

func (l *endpointList) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.eps...)
}

func (l *endpointList) set(eps []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.eps = eps
}

// RuntimeToken is handed to processes the host starts; tests use it to connect as one.
func (h *Host) RuntimeToken() string { return h.runtimeToken }

// Store is the runtime's store (for in-process components such as the watch engine).
func (h *Host) Store() *store.Store { return h.store }

// Close stops listeners, harnesses (running external turns end interrupted) and the store.
func (h *Host) Close() error {
	// Taking over sets the fields below; let it finish (or give up) first.
	if h.stopFollow != nil {
		h.stopFollow()
		<-h.followDone
	}
	var errs []error
	if h.server != nil {
		errs = append(errs, h.server.Close())
	}
	h.markers.Close()
	if h.stopApprovals != nil {
		h.stopApprovals()
	}
	if h.stopWatch != nil {
		h.stopWatch()
		h.watch.Wait()
	}
	errs = append(errs, h.fleet.Close())
	errs = append(errs, h.supervise.Close())
	h.handoffs.Close()
	if h.stopPrestart != nil {
		h.stopPrestart()
	}
	for _, hs := range h.harnesses {
		errs = append(errs, hs.Close())
	}
	if h.store != nil {
		errs = append(errs, h.store.Close())
	}
	return errors.Join(errs...)
}

func (h *Host) logf(format string, args ...any) {
	fmt.Fprintf(h.opts.Log, format+"\n", args...)
}

// config is config.toml as last read; live rereads it when it changed (runtime/config).
func (h *Host) config() *config.Config { return h.live.Get() }

// Subscribe registers fn for runtime events until ctx ends.
func (h *Host) Subscribe(ctx context.Context, fn func(api.Event)) { h.events.Subscribe(ctx, fn) }

// SubscribeCaller registers fn for the events caller may see: everything for agents and
// operators; for a client without operator.read, the events of its own principal's threads
// and its own event log, so that no client learns ids it was never given.
func (h *Host) SubscribeCaller(ctx context.Context, caller api.Caller, fn func(api.Event)) {
	fn = api.WithContentPolicy(caller, fn) // conversation text: runtime/api/eventcontent.go
	grant := h.live.Current().Grant(caller.Client)
	visible := h.threads.VisibleTo(caller, grant)
	if h.follower.Load() != nil && visible != nil {
		visible = h.followerVisible(ctx, caller, grant)
	}
	if visible == nil {
		h.Subscribe(ctx, fn)
		return
	}
	var mu sync.Mutex
	seen := map[string]bool{} // a thread's principal never changes
	h.Subscribe(ctx, func(ev api.Event) {
		if ev.Type == api.EventClientLog {
			if ev.Thread == caller.Client {
				fn(ev)
			}
			return
		}
		mu.Lock()
		ok, known := seen[ev.Thread]
		if !known {
			ok = visible(model.ThreadID(ev.Thread))
			seen[ev.Thread] = ok
		}
		mu.Unlock()
		if ok {
			fn(ev)
		}
	})
}

// onHarnessEvent keeps records in step with threads and fans the change out, under the
// supervised id too when the thread is a supervised thread's canonical one.
func (h *Host) onHarnessEvent(ev harness.Event) {
	if d := ev.Delta; d != nil {
		// A fragment of assistant text touches no record and no watch, and never enters the
		// store; who receives it: runtime/api/eventcontent.go.
		h.events.Publish(api.DeltaEvent(string(ev.Thread), ev.Status, ev.TurnID, api.ThreadDelta{ItemID: d.ItemID, Text: d.Text, Seq: d.Seq}))
		h.supervise.OnEvent(ev)
		return
	}
	if ev.Usage != nil {
		// Before the turn's end is told, so a reader sees it. A supervised thread's canonical
		// one reports under the supervised id (supervise.OnEvent).
		if !h.supervise.Canonical(ev.Thread) {
			h.recordUsage(ev)
		}
		if ev.TurnStatus == "" {
			h.supervise.OnEvent(ev)
			return
		}
	}
	if ev.Progress {
		// Only the transcript changed: no record to update and no stop to evaluate.
		h.events.Publish(api.Event{Type: api.EventThreadProgress, Thread: string(ev.Thread), Status: ev.Status, TurnID: ev.TurnID})
	} else {
		ev.At = eventTime(ev, h.opts.Now) // one time for the delegation, the records and the watches
		if status := delegationStatus(ev.TurnStatus); status != "" {
			if err := h.store.SetDelegationStatus(ev.Thread, status, ev.At); err != nil {
				fmt.Fprintf(h.opts.Log, "delegation status of %s: %v\n", ev.Thread, err)
			}
		}
		h.fleet.Observe(ev.Thread, ev.Status)
		h.recordEvent(ev.Thread, ev)
		h.markers.OnEvent(ev)
		h.approvals.TurnEnded(string(ev.Thread), ev.TurnStatus)
	}
	h.supervise.OnEvent(ev)
}

// recordEvent keeps the record of thread in step with a status event (a turn started or
// ended: its update time), tells the watch engine and publishes the event under thread.
func (h *Host) recordEvent(thread model.ThreadID, ev harness.Event) {
	if ev.TurnStatus != "" {
		if rec, err := h.store.Thread(thread); err == nil {
			at := eventTime(ev, h.opts.Now)
			rec.UpdatedAt, rec.RecencyAt = at, at
			if err := h.store.PutThread(rec); err != nil {
				fmt.Fprintf(h.opts.Log, "thread record of %s: %v\n", thread, err)
			}
		}
	}
	if h.watch != nil {
		h.watch.OnEvent(thread, ev.Status, ev.TurnStatus)
	}
	h.events.Publish(api.Event{Type: api.EventThreadStatus, Thread: string(thread), Status: ev.Status, TurnID: ev.TurnID, TurnStatus: ev.TurnStatus})
}

func eventTime(ev harness.Event, now func() time.Time) time.Time {
	if ev.At.IsZero() {
		return now()
	}
	return ev.At
}

func delegationStatus(turnStatus string) string {
	switch turnStatus {
	case model.TurnInProgress:
		return model.DelegationRunning
	case model.TurnCompleted:
		return model.DelegationCompleted
	case model.TurnFailed:
		return model.DelegationFailed
	case model.TurnInterrupted:
		return model.DelegationCancelled
	}
	return ""
}

// Handle dispatches one authenticated request through the routing table (runtime/routes.go).
// A follower passes every request to the runtime holding the home, whose table decides.
func (h *Host) Handle(ctx context.Context, caller api.Caller, method string, params json.RawMessage) (any, error) {
	if f := h.follower.Load(); f != nil {
		return f.Forward(ctx, caller, method, params)
	}
	return h.routes.Dispatch(ctx, caller, method, params)
}

// Authorize checks a method the API server serves itself (events.subscribe) against its policy.
func (h *Host) Authorize(caller api.Caller, method string) error {
	return h.routes.Authorize(caller, method)
}
