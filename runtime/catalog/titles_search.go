package catalog

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// resolveParallel bounds the thread/read calls one page of a search makes at once.
const resolveParallel = 4

// searchTitles answers a title search from the host's title index. A host with nothing
// indexed is read whole first, in this call: the page is then full (limit matches, or every
// match there is), and the index is kept for the next search, of this process or another.
// ok is false when the cursor continues a scan that paged the App Server.
func (c *Catalog) searchTitles(outer, ctx context.Context, h *host, limit int, search string, start *cursorBody) (api.CatalogHostSessions, bool) {
	if h.titles == nil || (start != nil && start.After == "") {
		return api.CatalogHostSessions{}, false
	}
	fail := func(err error) (api.CatalogHostSessions, bool) {
		return api.CatalogHostSessions{Host: h.spec.ID, Sessions: []api.CatalogSession{}, Error: model.AsError(err)}, true
	}
	c.loadTitles(h)
	if err := h.backingOff(c.opts.Now()); err != nil {
		return fail(err)
	}
	if start != nil && h.titles.current() == titlesEmpty {
		return fail(model.Errorf(model.CodeInvalidArgument, "start the search again without a cursor", "invalid cursor: the title index it belongs to was rebuilt"))
	}
	// A first read of the whole host is bounded by the caller, not by one host call.
	wctx := ctx
	if h.titles.current() == titlesEmpty {
		wctx = outer
	}
	if err := c.waitChecked(wctx, h); err != nil {
		if err == wctx.Err() && outer.Err() == nil {
			err = c.hostFailed(outer, h, err)
		}
		return fail(err)
	}
	if ctx.Err() != nil { // the full read took the host call's time: the rest gets its own
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(outer, c.opts.HostTimeout)
		defer cancel()
	}
	var conn Conn
	connect := func() (Conn, error) {
		if conn != nil {
			return conn, nil
		}
		var err error
		conn, err = c.conn(outer, ctx, h)
		return conn, err
	}
	if c.headDue(h) {
		cn, err := connect()
		if err != nil {
			return fail(err)
		}
		if err := c.headRead(ctx, h, cn); err != nil {
			return fail(c.hostFailed(outer, h, err))
		}
	}
	var after *titleCursor
	if start != nil {
		created, id, _ := strings.Cut(start.After, "|")
		n, err := strconv.ParseInt(created, 10, 64)
		if err != nil || id == "" {
			return fail(model.Errorf(model.CodeInvalidArgument, sessionsCursorHint, "invalid cursor: it is malformed"))
		}
		after = &titleCursor{createdAt: n, id: id}
	}
	rows, more, err := c.titlePage(outer, ctx, h, fold(search), after, limit, connect)
	if err != nil {
		return fail(err)
	}
	res := api.CatalogHostSessions{Host: h.spec.ID, Sessions: rows}
	if more && len(rows) > 0 {
		last := rows[len(rows)-1]
		res.NextCursor = c.encodeCursor(cursorBody{Kind: kindSessions, Host: h.spec.ID, Search: searchKey(search),
			After: strconv.FormatInt(last.CreatedAt.Unix(), 10) + "|" + last.ID})
	}
	h.titles.mu.Lock()
	res.Revalidating = c.titlesStale(h.titles, c.opts.Now())
	h.titles.mu.Unlock()
	if res.Revalidating && !c.opts.OneShot {
		c.revalidate(h)
	}
	return res, true
}

func (t *titles) current() titleState {
	s, _ := t.view()
	return s
}

// waitChecked starts the revalidation when needed and waits until the index is at least
// archive-exact: checked when it was read from the file, read whole when it was empty. It
// fails when the revalidation ended without it (the host's error, when it failed).
func (c *Catalog) waitChecked(ctx context.Context, h *host) error {
	ran := false
	for {
		st, changed := h.titles.view()
		if st >= titlesChecked {
			return nil
		}
		if !h.titlesBusy.Load() {
			if ran || !c.revalidate(h) {
				// It ended short of it: once is enough, the host backs off when it failed.
				if err := h.backingOff(c.opts.Now()); err != nil {
					return err
				}
				return errNoTitles
			}
			ran = true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

var errNoTitles = model.Errorf(model.CodeAppServerUnavailable, "retry the command", "the title index could not be checked")

// waitExact waits until a full read confirmed the index, starting one when none runs; false
// when it ended otherwise (the caller keeps the revalidating page).
func (c *Catalog) waitExact(ctx context.Context, h *host) bool {
	for {
		h.titles.mu.Lock()
		stale, changed := c.titlesStale(h.titles, c.opts.Now()), h.titles.changed
		h.titles.mu.Unlock()
		if !stale {
			return true
		}
		if !h.titlesBusy.Load() {
			c.revalidate(h)
			if !h.titlesBusy.Load() {
				return false
			}
		}
		select {
		case <-changed:
			if !h.titlesBusy.Load() {
				h.titles.mu.Lock()
				stale = c.titlesStale(h.titles, c.opts.Now())
				h.titles.mu.Unlock()
				return !stale
			}
		case <-ctx.Done():
			return false
		}
	}
}

// headDue says whether a search reads the newest rows first: they are older than the head's
// life (IndexTTL), or a change asked for it.
func (c *Catalog) headDue(h *host) bool {
	t := h.titles
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.headStale || c.opts.Now().Sub(t.headAt) >= c.opts.IndexTTL
}

// titlePage collects up to limit matching rows after the cursor. Rows known only from the
// file are read from the App Server first: a thread it no longer has is dropped, and one
// renamed meanwhile is matched by its current title.
func (c *Catalog) titlePage(outer, ctx context.Context, h *host, needle string, after *titleCursor, limit int, connect func() (Conn, error)) ([]api.CatalogSession, bool, error) {
	out := []api.CatalogSession{}
	cands := h.titles.matches(needle, after)
	for len(cands) > 0 && len(out) < limit {
		n := min(len(cands), limit-len(out))
		batch := cands[:n]
		cands = cands[n:]
		if err := c.resolve(outer, ctx, h, batch, connect); err != nil {
			return nil, false, err
		}
		h.omu.Lock()
		for _, e := range batch {
			if e.full == nil {
				continue // gone
			}
			r, ok := h.view(*e.full)
			if ok && strings.Contains(r.titleFold, needle) {
				out = append(out, r.s)
			}
		}
		h.omu.Unlock()
	}
	return out, len(cands) > 0, nil
}

// resolve reads the file-only entries of batch from the App Server, in place: full is set,
// or left nil for a thread the App Server no longer knows.
func (c *Catalog) resolve(outer, ctx context.Context, h *host, batch []*titleEntry, connect func() (Conn, error)) error {
	var todo []int
	for i, e := range batch {
		if e.full == nil {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	conn, err := connect()
	if err != nil {
		return err
	}
	started := c.opts.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	sem := make(chan struct{}, resolveParallel)
	for _, i := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			id := batch[i].id
			th, err := appserver.ReadThreadAs[ListedThread](ctx, conn, id)
			mu.Lock()
			defer mu.Unlock()
			switch r, ok := project(th); {
			case err != nil && appserver.UnknownThread(err):
				h.titles.remove(id, started)
				batch[i] = &titleEntry{id: id}
			case err != nil:
				if first == nil {
					first = err
				}
			case !ok:
				h.titles.remove(id, started)
				batch[i] = &titleEntry{id: id}
			default:
				r.at = started
				h.titles.resolved(r, started)
				batch[i] = &titleEntry{id: id, full: &r}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return c.hostFailed(outer, h, first)
	}
	return nil
}
