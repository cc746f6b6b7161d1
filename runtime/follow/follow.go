// Package follow is the follower side of several runtimes on one home. Badger lets one
// process hold a home's database, so the first runtime (the primary) holds the store, runs
// the harnesses and the watch engine and serves the home's socket. A later one (a follower)
// serves only its own TCP listener, forwarding every request to the primary, and takes the
// store over when the primary exits. Only the holder of the store runs the watch engine, so
// each watch has exactly one observer, and a dead runtime's watches are loaded (watch.Open)
// by exactly the one process that gets the store next.
package follow

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/store"
)

// Takeover backoff while the primary holds the store. A dropped connection to it (it is
// exiting) restarts the backoff at the minimum, so a takeover does not wait for a poll.
const (
	minWait = 50 * time.Millisecond
	maxWait = time.Second
)

// Follower is a follower's connection to the primary, dialed on demand.
type Follower struct {
	endpoint string
	publish  func(api.Event) // the follower's own subscribers

	mu     sync.Mutex
	conn   *api.Client
	lost   chan struct{} // closed when conn's event stream ends
	closed bool          // for good: the home's socket may now be this runtime's own
}

// New returns a Follower of the runtime at endpoint (the home's socket) that republishes
// the primary's events with publish.
func New(endpoint string, publish func(api.Event)) *Follower {
	return &Follower{endpoint: endpoint, publish: publish}
}

// WaitStore opens the home's store once the primary released it, or returns ctx's error
// when ctx ends first, or the error that is not the store being held.
func (f *Follower) WaitStore(ctx context.Context, home string, log io.Writer) (*store.Store, error) {
	wait := minWait
	for {
		st, err := store.Open(home, store.Options{Log: log})
		if err == nil || !errors.Is(err, store.ErrHeld) {
			return st, err
		}
		var lost <-chan struct{}
		if _, l, err := f.client(ctx); err == nil {
			lost = l
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-lost:
			wait = minWait
		case <-timer.C:
			wait = min(2*wait, maxWait)
		}
		timer.Stop()
	}
}

// client returns the connection to the primary, dialing one when there is none or it broke.
// The connection is subscribed to the primary's events, which the follower republishes to
// its own subscribers.
func (f *Follower) client(ctx context.Context) (*api.Client, <-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, errors.New("this runtime no longer follows")
	}
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
			f.publish(ev)
		}
	}()
	f.conn, f.lost = c, lost
	return c, lost, nil
}

// Close drops the connection to the primary for good: a closed Follower never dials again,
// since after a takeover the home's socket is the runtime's own, and a connection to it
// would republish the runtime's events to itself without end.
func (f *Follower) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if f.conn != nil {
		_ = f.conn.Close()
		f.conn = nil
	}
}

// Forward runs one request at the primary on behalf of caller.
func (f *Follower) Forward(ctx context.Context, caller api.Caller, method string, params json.RawMessage) (any, error) {
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

// Visible asks the runtime holding the home whether caller may hear of thread.
func (f *Follower) Visible(ctx context.Context, caller api.Caller, thread model.ThreadID) bool {
	b, _ := json.Marshal(api.ThreadVisibleParams{Thread: string(thread)})
	raw, err := f.Forward(ctx, caller, api.MethodThreadVisible, b)
	if err != nil {
		return false
	}
	var res api.ThreadVisibleResult
	out, _ := raw.(json.RawMessage)
	return json.Unmarshal(out, &res) == nil && res.Visible
}
