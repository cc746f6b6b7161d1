package catalog

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

const sessionsCursorHint = "pass the nextCursor that an earlier `codexhost sessions` gave for the same --host and --search, or no cursor for the newest sessions"

// interactiveSources are the session sources the catalog shows. The App Server's own default
// (no sourceKinds) is its interactive set; the check here keeps other kinds out whatever
// that default becomes. Atlas and ChatGPT arrive as custom sources.
// Built on first use: a package-level map or regexp is built by every process at start.
var interactiveSources = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"cli": true, "vscode": true, "atlas": true, "chatgpt": true}
})

// storedThreads is thread/list as the catalog sends it: the unarchived threads of the state
// database (fast, and it reads no rollout files), from cursor, size at a time.
func storedThreads(cursor string, size int) appserver.ThreadListParams {
	return appserver.ThreadListParams{Cursor: cursor, Limit: size, Archived: appserver.Unarchived(), UseStateDBOnly: true}
}

// ListedThread is a thread of thread/list decoded only as far as the projection shows:
// previews, paths, remotes and SHAs are never even read into memory. A paired node passes on
// exactly this, so they never leave the node either.
type ListedThread struct {
	ID            string                 `json:"id"`
	Name          *string                `json:"name"`
	Cwd           string                 `json:"cwd"`
	Status        appserver.ThreadStatus `json:"status"`
	CreatedAt     int64                  `json:"createdAt"`
	UpdatedAt     int64                  `json:"updatedAt"`
	Source        json.RawMessage        `json:"source"`
	ModelProvider string                 `json:"modelProvider"`
	CliVersion    string                 `json:"cliVersion"`
	Ephemeral     bool                   `json:"ephemeral"`
	GitInfo       *struct {
		Branch *string `json:"branch"`
	} `json:"gitInfo"`
}

// row is a projected session and the folded title search compares with.
type row struct {
	s         api.CatalogSession
	titleFold string
	at        time.Time // when it was read: changes seen after it win (overlay)
}

// segment is one native page: the rows the App Server returned after a cursor.
type segment struct {
	rows    []row
	next    string // native cursor after the last row; "" when end
	end     bool
	fetched time.Time
}

// overlay is a change seen after the pages were read (a status notification, our own
// archive); it wins over rows read before it.
type overlay struct {
	at       time.Time
	status   string
	waiting  bool
	archived bool
	title    *string
}

// index is a host's resident copy of the pages read so far, keyed by the native cursor each
// starts at, so that a warm list is served from memory and a cursor resumes without reading
// again. Expired pages are read again when needed. Guarded by host.mu, which a list holds
// while it reads from the App Server.
type index struct {
	gen  int
	segs map[string]*segment
	rows int
	// epoch counts the times the index started over: a page read before that is not put.
	epoch int
	// head is the newest page last put, kept once it expired, to splice its next read onto.
	head *segment
}

func (x *index) init() { x.segs = map[string]*segment{} }

func (x *index) reset() {
	x.segs, x.head, x.rows = map[string]*segment{}, nil, 0
	x.epoch++
}

// maxPageRows bounds a page grown by splice (and so a cursor's offset).
const maxPageRows = 2 * NativePageSize

// splice joins a page read again (s) onto the resident pages after it, when it now ends
// elsewhere than the copy it replaces (old), so that those pages go on serving instead of
// all being read again. The native order (created, newest first) never moves a thread, so:
//   - old's last row is in s (a thread of the page left): cut s after it; what follows is
//     what old's cursor reads, and the rows cut off are the start of the next page;
//   - s's last row is in old (new threads above pushed rows out of s): old's rows after it
//     follow s, then old's cursor; they are old rows still within ttl, else nothing is joined.
//
// Otherwise, and for a page that ends where it did, s stays as read.
func splice(s, old *segment, now time.Time, ttl time.Duration) *segment {
	if old == nil || len(old.rows) == 0 || len(s.rows) == 0 || (s.next == old.next && s.end == old.end) {
		return s
	}
	last := old.rows[len(old.rows)-1].s.ID
	for i, r := range s.rows {
		if r.s.ID == last {
			cut := *s
			cut.rows, cut.next, cut.end = s.rows[:i+1:i+1], old.next, old.end
			return &cut
		}
	}
	last = s.rows[len(s.rows)-1].s.ID
	for j, r := range old.rows {
		if r.s.ID != last {
			continue
		}
		rest := old.rows[j+1:]
		if len(rest) == 0 || len(s.rows)+len(rest) > maxPageRows {
			return s
		}
		for _, r := range rest {
			if now.Sub(r.at) >= ttl {
				return s
			}
		}
		joined := *s
		joined.rows = append(append(make([]row, 0, len(s.rows)+len(rest)), s.rows...), rest...)
		joined.next, joined.end = old.next, old.end
		return &joined
	}
	return s
}

func (x *index) drop(key string) {
	if s := x.segs[key]; s != nil {
		x.rows -= len(s.rows)
		delete(x.segs, key)
	}
}

// live is what notifications change, guarded by host.omu, never held across a call to an
// App Server: notifications must not wait for a slow list.
type live struct {
	overlay map[string]overlay
	known   map[string]bool // ids of the indexed rows (a superset once pages expire)
	// headStale asks the next list to read the newest page again: a thread the index does
	// not hold has changed, so it is likely new. reset asks it to start over.
	headStale bool
	reset     bool
}

func (l *live) init() {
	l.overlay = map[string]overlay{}
	l.known = map[string]bool{}
}

// prepare brings the index up to date before a list: failures and requests seen since the
// last one, expired pages and overlays.
func (h *host) prepare(now time.Time, headTTL, ttl time.Duration) {
	gen := h.failGeneration()
	h.omu.Lock()
	reset, head := h.live.reset || gen != h.idx.gen, h.live.headStale
	h.live.reset, h.live.headStale = false, false
	if reset {
		h.live.known = map[string]bool{}
	}
	for id, o := range h.live.overlay {
		if now.Sub(o.at) >= ttl {
			delete(h.live.overlay, id)
		}
	}
	h.omu.Unlock()
	if reset {
		h.idx.reset()
		h.idx.gen = gen
	}
	if head {
		h.idx.drop("")
	}
	for k, s := range h.idx.segs {
		if age := now.Sub(s.fetched); age >= ttl || (k == "" && age >= headTTL) {
			h.idx.drop(k)
		}
	}
}

// put stores a page read at key and returns it as stored (see splice).
func (h *host) put(key string, s *segment, now time.Time, ttl time.Duration) *segment {
	old := h.idx.segs[key]
	if old == nil && key == "" {
		old = h.idx.head
	}
	s = splice(s, old, now, ttl)
	h.idx.drop(key)
	if key == "" {
		h.idx.head = s
	}
	h.omu.Lock()
	if h.idx.rows+len(s.rows) > maxIndexRows {
		h.idx.reset()
		h.live.known = map[string]bool{}
	}
	h.idx.segs[key] = s
	h.idx.rows += len(s.rows)
	for _, r := range s.rows {
		h.live.known[r.s.ID] = true
	}
	h.omu.Unlock()
	return s
}

// view applies the overlay to a row; ok is false for an archived thread. The caller holds
// omu.
func (h *host) view(r row) (row, bool) {
	if o, has := h.live.overlay[r.s.ID]; has && !o.at.Before(r.at) {
		if o.archived {
			return r, false
		}
		if o.status != "" {
			r.s.Status, r.s.WaitingOnApproval = o.status, o.waiting
		}
		if o.title != nil {
			r.s.Title = *o.title
			r.titleFold = fold(*o.title)
		}
	}
	if h.spec.Waiting != nil && h.spec.Waiting(r.s.ID) {
		// A request waits in this runtime: the turn is active and waiting, whatever was seen.
		r.s.Status, r.s.WaitingOnApproval = model.ThreadActive, true
	}
	return r, true
}

// List returns one page of sessions per host (or of the one host asked for), the default
// host first. A host that fails has an error and no rows; the others are unaffected.
// settled, when set, receives each host's page as soon as it is ready.
func (c *Catalog) List(ctx context.Context, p api.CatalogSessionsParams, settled func(api.CatalogHostSessions)) (api.CatalogSessionsResult, error) {
	limit := p.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 1 || limit > MaxLimit:
		return api.CatalogSessionsResult{}, model.Errorf(model.CodeInvalidArgument, "give a limit from 1 to 100 (sessions per host)", "invalid limit %d", p.Limit)
	}
	search := strings.TrimSpace(p.Search)
	if n := utf8.RuneCountInString(search); n > MaxSearchRunes {
		return api.CatalogSessionsResult{}, model.Errorf(model.CodeInvalidArgument, "search for a shorter part of the title", "the search text has %d characters; at most %d", n, MaxSearchRunes)
	}
	if p.Cursor != "" && p.Host == "" {
		return api.CatalogSessionsResult{}, model.Errorf(model.CodeInvalidArgument, "pass --host with the id of the host the cursor came from", "a cursor needs --host")
	}
	hosts := c.hosts
	var start *cursorBody
	if p.Host != "" {
		h, err := c.host(p.Host)
		if err != nil {
			return api.CatalogSessionsResult{}, err
		}
		hosts = []*host{h}
		if p.Cursor != "" {
			b, err := c.decodeCursor(p.Cursor, kindSessions, h.spec.ID, sessionsCursorHint)
			if err != nil {
				return api.CatalogSessionsResult{}, err
			}
			if b.Search != searchKey(search) {
				return api.CatalogSessionsResult{}, model.Errorf(model.CodeInvalidArgument, sessionsCursorHint, "invalid cursor: it belongs to another search")
			}
			start = &b
		}
	}
	out := api.CatalogSessionsResult{Hosts: make([]api.CatalogHostSessions, len(hosts))}
	now := c.opts.Now()
	c.keepWarm()
	var wg sync.WaitGroup
	for i, h := range hosts {
		h.used(now)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := c.listHost(ctx, h, limit, search, start)
			if res.Revalidating && settled != nil {
				// The index answered before it was exact: show that, then the exact page.
				settled(res)
				wctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
				if c.waitExact(wctx, h) {
					res = c.listHost(ctx, h, limit, search, start)
				}
				cancel()
			}
			out.Hosts[i] = res
			if settled != nil {
				settled(res)
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// listHost fills one host's page from the index, reading native pages only where it has
// none: with a search at most SearchPages of them per call.
func (c *Catalog) listHost(outer context.Context, h *host, limit int, search string, start *cursorBody) api.CatalogHostSessions {
	res := api.CatalogHostSessions{Host: h.spec.ID, Sessions: []api.CatalogSession{}}
	ctx, cancel := context.WithTimeout(outer, c.opts.HostTimeout)
	defer cancel()
	if h.node() != nil {
		// A node's rows are served only while it is connected: an offline node shows no rows,
		// not remembered ones.
		if _, err := c.conn(outer, ctx, h); err != nil {
			return api.CatalogHostSessions{Host: h.spec.ID, Sessions: []api.CatalogSession{}, Error: model.AsError(err)}
		}
	}

	if search != "" {
		if res, ok := c.searchTitles(outer, ctx, h, limit, search, start); ok {
			return res
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prepare(c.opts.Now(), c.opts.IndexTTL, c.opts.PageTTL)

	pos, off := "", 0
	if start != nil {
		pos, off = start.Native, start.Offset
	}
	needle := fold(search)
	budget := c.opts.SearchPages
	var conn Conn
	var failed *model.Error
	// read asks the App Server for one page; a failure is the host's, recorded once.
	read := func(pos string, size int) (*segment, error) {
		if conn == nil {
			var err error
			if conn, err = c.conn(outer, ctx, h); err != nil {
				failed = model.AsError(err)
				return nil, failed
			}
		}
		s, err := fetchSegment(ctx, conn, pos, size, c.opts.Now)
		if err != nil {
			failed = c.hostFailed(outer, h, err)
			return nil, failed
		}
		return s, nil
	}
	fetched, more := 0, true
	for more && len(res.Sessions) < limit {
		seg := h.idx.segs[pos]
		if seg == nil {
			// A page the read-ahead is reading counts as read here: the call waits for it.
			if fetched >= budget {
				break // the position stays here; the cursor continues the scan
			}
			size := NativePageSize
			if search == "" {
				size = min(NativePageSize, off+limit-len(res.Sessions))
			}
			s, err := h.shared(ctx, pos, h.idx.epoch, func() (*segment, error) { return read(pos, size) })
			if err != nil {
				if failed == nil {
					failed = c.hostFailed(outer, h, err)
				}
				return api.CatalogHostSessions{Host: h.spec.ID, Sessions: []api.CatalogSession{}, Error: failed}
			}
			fetched++
			seg = h.put(pos, s, c.opts.Now(), c.opts.PageTTL)
		}
		i := off
		h.omu.Lock()
		for ; i < len(seg.rows) && len(res.Sessions) < limit; i++ {
			r, ok := h.view(seg.rows[i])
			if !ok || (needle != "" && !strings.Contains(r.titleFold, needle)) {
				continue
			}
			res.Sessions = append(res.Sessions, r.s)
		}
		h.omu.Unlock()
		if i < len(seg.rows) {
			off = i
			break
		}
		if seg.end {
			more = false
			break
		}
		pos, off = seg.next, 0
	}
	if fetched > 0 {
		h.succeeded(c.opts.Now())
	}
	if more {
		res.NextCursor = c.encodeCursor(cursorBody{Kind: kindSessions, Host: h.spec.ID, Native: pos, Offset: off, Search: searchKey(search)})
		c.readAhead(h, 0)
	}
	if h.titles != nil && search == "" {
		if n, exact := h.titles.total(); exact {
			res.Total = n
		}
	}
	return res
}

// readAhead fills the index of a host in the background, following the native pages from
// the newest, so that the next search or page is served from memory; pages that would
// expire within renew are read again (keep-warm). It reads at most ReadAheadPages pages,
// never while the host backs off, and stops at the first error (the next list reports it).
// The index lock is not held while it reads, so lists go on, and they share its reads.
func (c *Catalog) readAhead(h *host, renew time.Duration) {
	if c.opts.ReadAheadPages < 0 || c.bgCtx.Err() != nil || !h.ahead.CompareAndSwap(false, true) {
		return
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		defer h.ahead.Store(false)
		pos, fetched, pass := "", 0, c.opts.Now()
		// Cached pages are followed too; the step bound ends a loop among them.
		for steps := 0; fetched < c.opts.ReadAheadPages && steps < 4*c.opts.ReadAheadPages; steps++ {
			h.mu.Lock()
			now := c.opts.Now()
			h.prepare(now, c.opts.IndexTTL, c.opts.PageTTL)
			seg, gen, epoch := h.idx.segs[pos], h.idx.gen, h.idx.epoch
			h.mu.Unlock()
			if seg != nil && !c.due(pos, seg, pass, now, renew) {
				if seg.end {
					return
				}
				pos = seg.next
				continue
			}
			if c.bgCtx.Err() != nil || h.backingOff(now) != nil {
				return
			}
			ctx, cancel := context.WithTimeout(c.bgCtx, c.opts.HostTimeout)
			s, err := h.shared(ctx, pos, epoch, func() (*segment, error) {
				conn, err := h.spec.Source.Conn(ctx)
				if err != nil {
					return nil, err
				}
				return fetchSegment(ctx, conn, pos, NativePageSize, c.opts.Now)
			})
			cancel()
			if err != nil {
				return
			}
			fetched++
			h.mu.Lock()
			// A host that failed or started over meanwhile keeps nothing read before, and a
			// page a list read again meanwhile is newer than this one.
			cur := h.idx.segs[pos]
			if (cur == nil || cur == seg) && epoch == h.idx.epoch && gen == h.idx.gen && gen == h.failGeneration() {
				h.put(pos, s, c.opts.Now(), c.opts.PageTTL)
			}
			h.mu.Unlock()
		}
	}()
}
