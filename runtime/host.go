// Package runtime is the host runtime: one Host owns the store, the harnesses and the runtime
// API that the CLI, the terminal app and harness processes talk to.
package runtime

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/watch"
	"github.com/codexhost/codexhost/store"
)

// SocketName is the runtime's Unix socket inside the home.
const SocketName = "runtime.sock"

// Options configure a Host.
type Options struct {
	Home    string
	Listen  string   // optional loopback TCP address for external clients and nodes
	CLIPath string   // absolute path of the codexhost binary handed to harness processes
	Environ []string // the runtime's own environment; harnesses get a whitelist of it
	Version string
	// OperatorToken returns the home's operator client token (config.OperatorClient), with
	// which a follower (OpenOrFollow) authenticates at the runtime holding the home. It is
	// called only when the home is held, since making the token may write config.toml.
	OperatorToken func() (string, error)
	Now           func() time.Time
	Log           io.Writer
}

// Host is a running runtime.
type Host struct {
	opts         Options
	store        *store.Store
	server       *api.Server
	runtimeToken string

	epMu      sync.Mutex
	endpoints []string

	// A follower forwards every request to the runtime holding the home until it takes the
	// store over (runtime/follow.go). promoted receives once: nil when the host is (or
	// became) the primary, else why taking over failed.
	follower   atomic.Pointer[follower]
	promoted   chan error
	stopFollow context.CancelFunc
	followDone chan struct{}

	cfgMu    sync.Mutex
	cfg      *config.Config
	cfgStamp time.Time

	harnesses map[string]harness.Harness
	native    *harness.Native

	subMu sync.Mutex
	subs  map[int]func(api.Event)
	subID int

	keyLocks keyedMutex

	watch     *watch.Engine
	stopWatch context.CancelFunc

	catalog *catalog.Catalog // fleet catalog (runtime/catalog.go)

	supervision *supervision // supervised threads of continue (runtime/supervise.go)

	node nodeState // this runtime as a paired node (runtime/node.go)
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
	return &Host{opts: opts, runtimeToken: config.NewToken(), subs: map[int]func(api.Event){},
		promoted: make(chan error, 1)}
}

// listen loads the config and starts the server with its TCP listener, which both roles have.
func (h *Host) listen() error {
	if err := h.reloadConfig(); err != nil {
		return err
	}
	h.server = api.NewServer(h, api.ServerOptions{Version: h.opts.Version, Log: h.opts.Log, InflightLimit: inflightLimit})
	if h.opts.Listen != "" {
		tcpEndpoint, err := h.server.ListenTCP(h.opts.Listen)
		if err != nil {
			_ = h.server.Close()
			return err
		}
		h.setEndpoints(append(h.Endpoints(), tcpEndpoint))
	}
	return nil
}

// takeStore makes the host the home's runtime on the store it just opened: the home's socket,
// the harnesses and the watch engine, which restores every watch of the home.
func (h *Host) takeStore(st *store.Store) error {
	h.store = st
	unixEndpoint, err := h.server.ListenUnix(filepath.Join(h.opts.Home, SocketName))
	if err != nil {
		return err
	}
	h.setEndpoints(append([]string{unixEndpoint}, h.Endpoints()...))
	if err := h.startHarnesses(unixEndpoint); err != nil {
		return err
	}
	return h.startWatches()
}

func (h *Host) startHarnesses(endpoint string) error {
	cfg := h.config()
	conn := harness.Env{CLIPath: h.opts.CLIPath, Endpoint: endpoint, Token: h.runtimeToken}
	h.harnesses = map[string]harness.Harness{}

	// The App Server sees a whitelist of our environment plus exactly the three connection
	// parameters; every other CODEXHOST_* variable is stripped by BaseEnv.
	appEnv := append(harness.BaseEnv(h.opts.Environ, cfg.AppServer.Passthrough), conn.Vars()...)
	logDir := filepath.Join(h.opts.Home, "logs")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return err
	}
	h.node.mu.Lock()
	h.node.env = harness.BaseEnv(h.opts.Environ, cfg.AppServer.Passthrough)
	h.node.mu.Unlock()
	codexBin := cfg.CodexBin
	h.native = harness.NewNative(harness.NativeOptions{
		Start: func(ctx context.Context) (*appserver.Client, error) {
			bin, err := appserver.Locate(codexBin, envLookup(h.opts.Environ))
			if err != nil {
				return nil, err
			}
			return appserver.Start(ctx, appserver.Config{
				Bin:           bin,
				Env:           appEnv,
				Dir:           h.opts.Home,
				StderrLog:     filepath.Join(logDir, "app-server.log"),
				ClientName:    "codexhost",
				ClientVersion: h.opts.Version,
			})
		},
		OnEvent: h.onHarnessEvent,
		Now:     h.opts.Now,
	})
	h.harnesses[model.NativeHarness] = h.native
	if err := h.startCatalog(cfg, appEnv, logDir); err != nil {
		return err
	}
	if err := h.startSupervision(cfg, appEnv, logDir); err != nil {
		return err
	}

	base := harness.BaseEnv(h.opts.Environ, nil)
	for _, name := range cfg.HarnessNames() {
		hc := cfg.Harnesses[name]
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

func envLookup(environ []string) func(string) string {
	return func(key string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	}
}

// Serve accepts connections until ctx ends or Close is called.
func (h *Host) Serve(ctx context.Context) error { return h.server.Serve(ctx) }

// Endpoints are the addresses the runtime listens on (unix first; a follower has no unix
// socket until it takes over).
func (h *Host) Endpoints() []string {
	h.epMu.Lock()
	defer h.epMu.Unlock()
	return append([]string(nil), h.endpoints...)
}

func (h *Host) setEndpoints(eps []string) {
	h.epMu.Lock()
	defer h.epMu.Unlock()
	h.endpoints = eps
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
	if h.stopWatch != nil {
		h.stopWatch()
		h.watch.Wait()
	}
	if h.catalog != nil {
		errs = append(errs, h.catalog.Close())
	}
	errs = append(errs, h.closeSupervision())
	for _, hs := range h.harnesses {
		errs = append(errs, hs.Close())
	}
	if h.store != nil {
		errs = append(errs, h.store.Close())
	}
	return errors.Join(errs...)
}

func (h *Host) config() *config.Config {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	return h.cfg
}

// reloadConfig rereads config.toml when it changed, so clients added with `codexhost client
// add` work without a restart. Harness changes need a restart.
func (h *Host) reloadConfig() error {
	path := filepath.Join(h.opts.Home, config.FileName)
	var stamp time.Time
	if st, err := os.Stat(path); err == nil {
		stamp = st.ModTime()
	}
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	if h.cfg != nil && stamp.Equal(h.cfgStamp) {
		return nil
	}
	cfg, err := config.Load(h.opts.Home)
	if err != nil {
		return err
	}
	h.cfg, h.cfgStamp = cfg, stamp
	return nil
}

// Authenticate accepts the runtime token or a configured client's token.
func (h *Host) Authenticate(token string) (api.Caller, bool) {
	if token == "" {
		return api.Caller{}, false
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(h.runtimeToken)) == 1 {
		return api.Caller{Kind: api.CallerRuntime}, true
	}
	if err := h.reloadConfig(); err != nil {
		fmt.Fprintf(h.opts.Log, "config reload: %v\n", err)
	}
	if name, ok := h.config().MatchClient(token); ok {
		if h.config().Clients[name].Node {
			return api.Caller{Kind: api.CallerNode, Client: name}, true
		}
		return api.Caller{Kind: api.CallerClient, Client: name}, true
	}
	return api.Caller{}, false
}

// Subscribe registers fn for runtime events until ctx ends.
func (h *Host) Subscribe(ctx context.Context, fn func(api.Event)) {
	h.subMu.Lock()
	h.subID++
	id := h.subID
	h.subs[id] = fn
	h.subMu.Unlock()
	go func() {
		<-ctx.Done()
		h.subMu.Lock()
		delete(h.subs, id)
		h.subMu.Unlock()
	}()
}

func (h *Host) publish(ev api.Event) {
	h.subMu.Lock()
	fns := make([]func(api.Event), 0, len(h.subs))
	for _, fn := range h.subs {
		fns = append(fns, fn)
	}
	h.subMu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

// onHarnessEvent keeps records in step with threads and fans the change out.
func (h *Host) onHarnessEvent(ev harness.Event) {
	if ev.Progress {
		// Only the transcript changed: no record to update and no stop to evaluate.
		h.publish(api.Event{Type: api.EventThreadProgress, Thread: string(ev.Thread), Status: ev.Status, TurnID: ev.TurnID})
		if h.supervision != nil {
			if sup, ok, err := h.supervision.sup.OfCanonical(ev.Thread); err == nil && ok {
				h.publish(api.Event{Type: api.EventThreadProgress, Thread: string(sup.Thread), Status: ev.Status, TurnID: ev.TurnID})
			}
		}
		return
	}
	at := ev.At
	if at.IsZero() {
		at = h.opts.Now()
	}
	if ev.TurnStatus != "" {
		if status := delegationStatus(ev.TurnStatus); status != "" {
			if err := h.store.SetDelegationStatus(ev.Thread, status, at); err != nil {
				fmt.Fprintf(h.opts.Log, "delegation status of %s: %v\n", ev.Thread, err)
			}
		}
		if rec, err := h.store.Thread(ev.Thread); err == nil {
			rec.UpdatedAt, rec.RecencyAt = at, at
			if err := h.store.PutThread(rec); err != nil {
				fmt.Fprintf(h.opts.Log, "thread record of %s: %v\n", ev.Thread, err)
			}
		}
	}
	if h.watch != nil {
		h.watch.OnEvent(ev.Thread, ev.Status, ev.TurnStatus)
	}
	h.catalogObserve(ev.Thread, ev.Status)
	h.publish(api.Event{Type: api.EventThreadStatus, Thread: string(ev.Thread), Status: ev.Status, TurnID: ev.TurnID, TurnStatus: ev.TurnStatus})
	h.supervisedEvent(ev)
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

// Handle dispatches one authenticated request.
func (h *Host) Handle(ctx context.Context, caller api.Caller, method string, params json.RawMessage) (any, error) {
	if f := h.follower.Load(); f != nil {
		return f.forward(ctx, caller, method, params)
	}
	if caller.Kind == api.CallerNode || method == api.MethodNodeDescribe || method == api.MethodNodeInvoke {
		return h.handleNode(ctx, caller, method, params)
	}
	if api.IsCompatMethod(method) {
		return h.handleCompat(ctx, caller, method, params)
	}
	switch method {
	case api.MethodRuntimeForward:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ForwardParams) (any, error) { return h.forwarded(ctx, caller, p) })
	case api.MethodRuntimeInfo:
		return api.RuntimeInfo{Version: h.opts.Version, Home: h.opts.Home, Endpoints: h.Endpoints(), Pid: os.Getpid()}, nil
	case api.MethodHarnessList:
		return h.HarnessList(), nil
	case api.MethodDelegateStart:
		return decodeCall(ctx, params, func(ctx context.Context, p api.DelegateStartParams) (any, error) {
			return h.DelegateStart(ctx, caller, p)
		})
	case api.MethodThreadRead:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ThreadReadParams) (any, error) { return h.ThreadRead(ctx, p) })
	case api.MethodThreadWait:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ThreadWaitParams) (any, error) { return h.ThreadWait(ctx, p) })
	case api.MethodThreadList:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ThreadListParams) (any, error) { return h.ThreadList(ctx, caller, p) })
	case api.MethodThreadSend:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ThreadSendParams) (any, error) { return h.ThreadSend(ctx, caller, p) })
	case api.MethodThreadWatch:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ThreadWatchParams) (any, error) { return h.ThreadWatch(ctx, caller, p) })
	case api.MethodThreadWatches:
		return h.ThreadWatches(), nil
	case api.MethodClientEvents:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ClientEventsParams) (any, error) { return h.ClientEvents(caller, p) })
	case api.MethodThreadCancel:
		return decodeCall(ctx, params, func(ctx context.Context, p api.ThreadCancelParams) (any, error) { return h.ThreadCancel(ctx, p) })
	case api.MethodCatalogHosts, api.MethodCatalogSessions, api.MethodCatalogTranscript, api.MethodCatalogArchive:
		return h.handleCatalog(ctx, caller, method, params)
	case api.MethodStoreBackup:
		return decodeCall(ctx, params, func(ctx context.Context, p api.StoreBackupParams) (any, error) { return h.StoreBackup(ctx, caller, p) })
	case api.MethodCatalogContinue:
		return decodeCall(ctx, params, func(ctx context.Context, p api.CatalogContinueParams) (any, error) {
			return h.CatalogContinue(ctx, caller, p)
		})
	}
	return nil, fmt.Errorf("%w: %s", api.ErrUnknownMethod, method)
}

func decodeCall[P any](ctx context.Context, raw json.RawMessage, fn func(context.Context, P) (any, error)) (any, error) {
	var p P
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, model.Errorf(model.CodeInvalidArgument, "check the request fields", "malformed parameters: %v", err)
		}
	}
	return fn(ctx, p)
}

// HarnessList lists the registered harnesses, native first.
func (h *Host) HarnessList() api.HarnessListResult {
	var out api.HarnessListResult
	for name, hs := range h.harnesses {
		out.Harnesses = append(out.Harnesses, api.HarnessInfo{Name: name, Kind: hs.Kind()})
	}
	sort.Slice(out.Harnesses, func(i, j int) bool {
		a, b := out.Harnesses[i], out.Harnesses[j]
		if (a.Name == model.NativeHarness) != (b.Name == model.NativeHarness) {
			return a.Name == model.NativeHarness
		}
		return a.Name < b.Name
	})
	return out
}

func (h *Host) harnessNames() []string {
	var names []string
	for _, hi := range h.HarnessList().Harnesses {
		names = append(names, hi.Name)
	}
	return names
}

// keyedMutex serialises work per key (an idempotency key) without one global lock.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*keyedEntry
}

type keyedEntry struct {
	mu   sync.Mutex
	refs int
}

func (k *keyedMutex) Lock(key string) func() {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyedEntry{}
	}
	e := k.locks[key]
	if e == nil {
		e = &keyedEntry{}
		k.locks[key] = e
	}
	e.refs++
	k.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}
