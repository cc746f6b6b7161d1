package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/store"
)

// Several runtimes on one home. Badger lets one process hold a home's database, so the first
// runtime (the primary) holds the store, runs the harnesses and the watch engine and serves
// the home's socket. A later one (a follower) serves only its own TCP listener, forwarding
// every request to the primary, and takes the store over when the primary exits. Only the
// holder of the store runs the watch engine, so each watch has exactly one observer, and a
// dead runtime's watches are loaded (watch.Open) by exactly the one process that gets the
// store next.

// Roles of a Host.
const (
	RolePrimary  = "primary"
	RoleFollower = "follower"
)

// Takeover backoff while the primary holds the store. A dropped connection to it (it is
// exiting) restarts the backoff at the minimum, so a takeover does not wait for a poll.
const (
	followMinWait = 50 * time.Millisecond
	followMaxWait = time.Second
)

// OpenOrFollow is Open, except that when another process holds the home and
// opts.Follow is set, the host starts as a follower: it listens on opts.Listen only,
// forwards every request to the holder over the home's socket as the operator client (the
// caller's identity travels with the request, see api.ForwardParams), and takes the home over
// once the holder releases it. Promoted reports the takeover.
func OpenOrFollow(ctx context.Context, opts Options) (*Host, error) {
	h, err := Open(ctx, opts)
	if err == nil || !errors.Is(err, store.ErrHeld) || !opts.Follow {
		return h, err
	}
	h = newHost(opts)
	if err := h.listen(); err != nil {
		return nil, err
	}
	f := &follower{h: h, endpoint: api.UnixEndpoint(filepath.Join(h.opts.Home, SocketName))}
	h.follower.Store(f)
	fctx, cancel := context.WithCancel(context.Background())
	h.stopFollow, h.followDone = cancel, make(chan struct{})
	go h.follow(fctx, f)
	return h, nil
}

// Role is RolePrimary or RoleFollower.
func (h *Host) Role() string {
	if h.follower.Load() != nil {
		return RoleFollower
	}
	return RolePrimary
}

// Promoted receives once: nil when the host holds the home (at once for a primary), or the
// error that stopped a follower from taking it over.
func (h *Host) Promoted() <-chan error { return h.promoted }

// follow waits for the store and takes the home over.
func (h *Host) follow(ctx context.Context, f *follower) {
	defer close(h.followDone)
	defer f.close()
	wait := followMinWait
	for {
		st, err := store.Open(h.opts.Home, store.Options{Log: h.opts.Log})
		if err == nil {
			if err = h.takeStore(st); err == nil {
				h.follower.Store(nil)
				fmt.Fprintf(h.opts.Log, "runtime: took over the home %s\n", h.opts.Home)
			}
			h.promoted <- err
			return
		}
		if !errors.Is(err, store.ErrHeld) {
			h.promoted <- err
			return
		}
		var lost <-chan struct{}
		if _, l, err := f.client(ctx); err == nil {
			lost = l
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-lost:
			wait = followMinWait
		case <-timer.C:
			wait = min(2*wait, followMaxWait)
		}
		timer.Stop()
	}
}

// follower is a follower's connection to the primary, dialed on demand.
type follower struct {
	h        *Host
	endpoint string

	mu   sync.Mutex
	conn *api.Client
	lost chan struct{} // closed when conn's event stream ends
}

// client returns the connection to the primary, dialing one when there is none or it broke.
// The connection is subscribed to the primary's events, which the follower republishes to
// its own subscribers.
func (f *follower) client(ctx context.Context) (*api.Client, <-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn != nil {
		select {
		case <-f.lost:
			_ = f.conn.Close()
			f.conn = nil
		default:
			return f.conn, f.lost, nil
		}
	}
	c, err := api.Dial(ctx, f.endpoint, "") // as the home's operator, by who it is
	if err != nil {
		return nil, nil, err
	}
	events, err := c.Events(context.Background())
	if err != nil {
		_ = c.Close()
		return nil, nil, err
	}
	lost := make(chan struct{})
	go func() {
		defer close(lost)
		for ev := range events {
			f.h.publish(ev)
		}
	}()
	f.conn, f.lost = c, lost
	return c, lost, nil
}

func (f *follower) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn != nil {
		_ = f.conn.Close()
		f.conn = nil
	}
}

// forward runs one request at the primary on behalf of caller.
func (f *follower) forward(ctx context.Context, caller api.Caller, method string, params json.RawMessage) (any, error) {
	c, _, err := f.client(ctx)
	if err != nil {
		return nil, model.Errorf(model.CodeRuntimeUnreachable,
			"retry in a moment: this runtime takes the home over when the one holding it exits",
			"the runtime holding the home is not reachable: %v", err)
	}
	var out json.RawMessage
	// Events of the call (its progress) go back to the caller's own connection.
	relay := func(ev api.Event) { api.Notify(ctx, ev) }
	if err := c.CallEvents(ctx, api.MethodRuntimeForward, api.ForwardParams{Caller: caller, Method: method, Params: params}, &out, relay); err != nil {
		return nil, err
	}
	return out, nil
}

// visible asks the runtime holding the home whether caller may hear of thread.
func (f *follower) visible(ctx context.Context, caller api.Caller, thread model.ThreadID) bool {
	raw, err := f.forward(ctx, caller, api.MethodThreadVisible, mustJSON(api.ThreadVisibleParams{Thread: string(thread)}))
	if err != nil {
		return false
	}
	var res api.ThreadVisibleResult
	b, _ := raw.(json.RawMessage)
	return json.Unmarshal(b, &res) == nil && res.Visible
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// forwarded runs a request a follower passed on. Only the operator client may assert another
// caller (forwardPolicy): it is the home's user outside the runtime (it can rewrite config.toml), so
// trusting it grants nothing new. Forwarded callers are named clients (external or node),
// never the runtime's own processes.
func (h *Host) forwarded(ctx context.Context, p api.ForwardParams) (any, error) {
	if err := h.reloadConfig(); err != nil {
		return nil, err
	}
	// The caller's kind follows from its entry: a node client's requests stay node requests.
	cl, ok := h.config().Clients[p.Caller.Client]
	kind := api.CallerClient
	if cl.Node {
		kind = api.CallerNode
	}
	if !ok || p.Caller.Kind != kind {
		return nil, model.Errorf(model.CodeInvalidArgument, "forward requests of configured clients only",
			"cannot forward a request of caller %+v", p.Caller)
	}
	if p.Method == api.MethodRuntimeForward {
		return nil, model.Errorf(model.CodeInvalidArgument, "forward the request itself", "a forwarded request cannot be forwarded again")
	}
	return h.Handle(ctx, p.Caller, p.Method, p.Params)
}
