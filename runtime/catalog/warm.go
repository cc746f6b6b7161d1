package catalog

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// A title search over a large host is bounded by the App Server, not by this side: one
// native page of 100 threads costs it ~10 ms (bench/catalog-10k.sh), so a host of 10,000
// threads takes ~1 s to read, and a page cannot be asked before the previous one answered
// (its cursor comes from it). What is read is therefore read once and kept warm: a list and
// the read-ahead share the reads of a page (flights), a runtime reads its hosts ahead from
// the start (Warm), an index in use is renewed before its pages expire (keep-warm), and a
// page read again is spliced onto the resident pages after it (list.go), so that new
// threads cost one page, not a new read of the host. A search on a running runtime is so
// served from memory. Titles are also kept in a file per local host (titles.go): a runtime
// just started answers a search from it once it is checked, marked revalidating until a
// full read (its sweep, which also reads these pages ahead) confirmed it.

// DefaultKeepWarm is how long after its last use a host's index is kept warm.
const DefaultKeepWarm = 10 * time.Minute

// flight is a native page being read. Whoever needs the same page meanwhile waits for it
// instead of asking the App Server again.
type flight struct {
	done    chan struct{}
	seg     *segment
	err     error
	epoch   int          // the index epoch it was started in; a page read across a reset is not reused
	waiters atomic.Int32 // callers that joined it
}

func (f *flight) wait(ctx context.Context) (*segment, error) {
	select {
	case <-f.done:
		return f.seg, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// flights are a host's pages being read, by native cursor.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

// join returns the read of pos under way in epoch, or registers one that the caller leads:
// it reads the page and calls land, whatever the outcome.
func (fs *flights) join(pos string, epoch int) (f *flight, lead bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f := fs.m[pos]; f != nil && f.epoch == epoch {
		f.waiters.Add(1)
		return f, false
	}
	if fs.m == nil {
		fs.m = map[string]*flight{}
	}
	f = &flight{done: make(chan struct{}), epoch: epoch}
	fs.m[pos] = f
	return f, true
}

func (fs *flights) land(pos string, f *flight, seg *segment, err error) {
	fs.mu.Lock()
	if fs.m[pos] == f {
		delete(fs.m, pos)
	}
	fs.mu.Unlock()
	f.seg, f.err = seg, err
	close(f.done)
}

// shared reads the native page at pos through flights: it waits for a read of it already
// under way, or leads one that others may join. A joined read that failed is not taken as
// this caller's failure (its context may have ended); read then calls the App Server itself.
func (h *host) shared(ctx context.Context, pos string, epoch int, read func() (*segment, error)) (*segment, error) {
	f, lead := h.fl.join(pos, epoch)
	if !lead {
		seg, err := f.wait(ctx)
		if err == nil {
			return seg, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return read()
	}
	seg, err := read()
	h.fl.land(pos, f, seg, err)
	return seg, err
}

// Warm starts reading every host's index in the background, as a read-ahead does, so that
// the first search of a runtime that has been up a moment is served from memory; with
// Options.KeepWarm the hosts are then kept warm for that long.
func (c *Catalog) Warm() {
	now := c.opts.Now()
	for _, h := range c.hosts {
		h.used(now)
		if h.titles != nil {
			// Its sweep reads the pages ahead too.
			c.loadTitles(h)
			c.revalidate(h)
			continue
		}
		c.readAhead(h, 0)
	}
	c.keepWarm()
}

func (h *host) used(now time.Time) { h.usedAt.Store(now.UnixNano()) }

func (h *host) lastUsed() time.Time { return time.Unix(0, h.usedAt.Load()) }

// refreshEvery is the period of keep-warm: a third of the life of a page. A refresh renews
// the pages that would expire within two periods, so each is renewed about once per life,
// at least a period before it expires, however long the renewal of the others takes.
func (c *Catalog) refreshEvery() time.Duration {
	return max(c.opts.PageTTL/3, time.Second)
}

// keepWarm starts the keep-warm loop once, when Options.KeepWarm asks for it.
func (c *Catalog) keepWarm() {
	if c.opts.KeepWarm <= 0 || c.opts.ReadAheadPages < 0 || c.bgCtx.Err() != nil || !c.warming.CompareAndSwap(false, true) {
		return
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		t := time.NewTicker(c.refreshEvery())
		defer t.Stop()
		for {
			select {
			case <-c.bgCtx.Done():
				return
			case <-t.C:
				c.refresh()
			}
		}
	}()
}

// refresh renews, in the background, the pages of every host used within KeepWarm that
// would expire within two refresh periods.
func (c *Catalog) refresh() {
	now := c.opts.Now()
	for _, h := range c.hosts {
		if now.Sub(h.lastUsed()) < c.opts.KeepWarm {
			if h.titles != nil && c.titlesDue(h, now) {
				c.revalidate(h) // its sweep renews the pages too
				continue
			}
			c.readAhead(h, 2*c.refreshEvery())
		}
	}
}

// due says whether a read-ahead that started at pass renews a resident page: one read
// before the pass that would expire within renew. A page is so renewed once per pass, also
// the newest one, whose life is shorter than renew.
func (c *Catalog) due(pos string, s *segment, pass, now time.Time, renew time.Duration) bool {
	if renew <= 0 || !s.fetched.Before(pass) {
		return false
	}
	ttl := c.opts.PageTTL
	if pos == "" {
		ttl = c.opts.IndexTTL
	}
	return now.Sub(s.fetched) >= ttl-renew
}
