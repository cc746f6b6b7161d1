package runtime

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/follow"
	"github.com/codexhost/codexhost/store"
)

// Roles of a Host: several runtimes on one home (runtime/follow).
const (
	RolePrimary  = "primary"
	RoleFollower = "follower"
)

// ErrHeld is matched by Open's error when another process holds the home.
var ErrHeld = store.ErrHeld

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
	f := follow.New(api.UnixEndpoint(filepath.Join(h.opts.Home, SocketName)), h.events.Publish)
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

// follow waits for the store and takes the home over; a stop (Close) ends it unpromoted.
func (h *Host) follow(ctx context.Context, f *follow.Follower) {
	defer close(h.followDone)
	defer f.Close()
	st, err := f.WaitStore(ctx, h.opts.Home, h.opts.Log)
	if err != nil && ctx.Err() != nil {
		return
	}
	if err == nil {
		// From here the home's socket is this runtime's own: the follower must not dial it.
		f.Close()
		if err = h.takeStore(st); err == nil {
			h.follower.Store(nil)
			h.logf("runtime: took over the home %s", h.opts.Home)
		}
	}
	h.promoted <- err
}

// AuthenticatePeer decides who a connection is from its token and its peer (runtime/auth).
func (h *Host) AuthenticatePeer(token string, peer api.Peer) (api.Caller, error) {
	return h.auth.Peer(token, peer)
}

// Authenticate accepts a token alone, where no connection exists (runtime/auth).
func (h *Host) Authenticate(token string) (api.Caller, bool) { return h.auth.Token(token) }

// followerVisible is a subscriber's visibility check made while the host follows: the holder
// decides while there is one, and this host's own threads once it took the home over, as
// asking the follower then would ask this very runtime through its own socket.
func (h *Host) followerVisible(ctx context.Context, caller api.Caller, grant config.Grant) func(model.ThreadID) bool {
	var once sync.Once
	var local func(model.ThreadID) bool
	return func(id model.ThreadID) bool {
		if f := h.follower.Load(); f != nil {
			return f.Visible(ctx, caller, id)
		}
		once.Do(func() { local = h.threads.VisibleTo(caller, grant) })
		return local == nil || local(id)
	}
}
