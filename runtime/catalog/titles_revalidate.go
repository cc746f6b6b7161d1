package catalog

import (
	"context"
	"fmt"
	"time"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// maxTitlePages bounds any walk of one host's lists (maxIndexRows rows).
const maxTitlePages = maxIndexRows / NativePageSize

// loadTitles reads the host's index file once; a missing, damaged or foreign one leaves the
// index empty, to be built by the first full read.
func (c *Catalog) loadTitles(h *host) {
	h.titlesOnce.Do(func() {
		hd, entries, err := readTitlesFile(h.titlesPath)
		if err != nil {
			return
		}
		t := h.titles
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.state != titlesEmpty {
			return
		}
		for i := range entries {
			e := entries[i]
			t.entries[e.id] = &e
		}
		t.watermark, t.version, t.homeKey, t.loadedAt = hd.Watermark, hd.Codex, hd.Home, c.opts.Now()
		t.raise(titlesLoaded)
	})
}

// saveTitles writes the index when it changed since it was last written.
func (c *Catalog) saveTitles(h *host) {
	entries, wm, version, hk, dirty := h.titles.snapshot()
	if !dirty || version == "" {
		return
	}
	if err := writeTitlesFile(h.titlesPath, titlesHeader{Codex: version, Home: hk, Watermark: wm}, entries); err != nil {
		fmt.Fprintf(c.opts.Log, "catalog: host %s: write the title index: %v\n", h.spec.ID, err)
	}
}

// titlesStale says whether the last full read is too old to call the index exact.
func (c *Catalog) titlesStale(t *titles, now time.Time) bool {
	return t.state != titlesExact || now.Sub(t.exactAt) >= c.opts.PageTTL
}

// revalidate starts, unless one runs, the background work that brings a host's title index
// up: a stored index is checked first (checkTitles), then confirmed by a full read (sweep)
// unless one is recent. It writes the file after each step, and wakes the waiters at the end
// whatever the outcome.
// It reports whether one runs (this one or another).
func (c *Catalog) revalidate(h *host) bool {
	if h.titles == nil || c.bgCtx.Err() != nil {
		return false
	}
	if !h.titlesBusy.CompareAndSwap(false, true) {
		return true
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		defer func() {
			h.titlesBusy.Store(false)
			h.titles.mu.Lock()
			h.titles.raise(titlesEmpty) // wakes waiters only
			h.titles.mu.Unlock()
		}()
		if err := c.revalidateOnce(h); err != nil && c.bgCtx.Err() == nil {
			c.hostFailed(c.bgCtx, h, err)
		}
	}()
	return true
}

func (c *Catalog) revalidateOnce(h *host) error {
	if err := h.backingOff(c.opts.Now()); err != nil {
		return nil // the next list reports it
	}
	ctx, cancel := context.WithTimeout(c.bgCtx, c.opts.HostTimeout)
	conn, err := h.spec.Source.Conn(ctx)
	cancel()
	if err != nil {
		return err
	}
	c.checkIdentity(h, conn)
	t := h.titles
	t.mu.Lock()
	state := t.state
	t.mu.Unlock()
	if state == titlesLoaded {
		if err := c.checkTitles(h, conn); err != nil {
			return err
		}
		c.saveTitles(h)
	}
	t.mu.Lock()
	stale := c.titlesStale(t, c.opts.Now())
	t.mu.Unlock()
	// One command answers from a checked index: a full read it would not see through is
	// left to a lasting runtime. An index with nothing in it is read whole here.
	if !stale || (c.opts.OneShot && state == titlesLoaded) {
		return nil
	}
	if err := c.sweep(h, conn); err != nil {
		return err
	}
	c.saveTitles(h)
	return nil
}

// checkIdentity starts the index over when it was read with another Codex version or from
// another Codex home.
func (c *Catalog) checkIdentity(h *host, conn Conn) {
	info := conn.Info()
	v, hk := codexVersion(info.UserAgent), homeKey(info.CodexHome)
	if v == "" {
		v = cleanLine(info.UserAgent, 80)
	}
	t := h.titles
	t.mu.Lock()
	foreign := t.state != titlesEmpty && (t.version != v || t.homeKey != hk)
	t.mu.Unlock()
	if foreign {
		t.reset()
	}
	t.mu.Lock()
	t.version, t.homeKey = v, hk
	t.mu.Unlock()
}

// checkTitles makes a stored index archive-exact: the newest threads down to its watermark
// (new, continued and unarchived threads) are indexed, and every archived thread is dropped.
func (c *Catalog) checkTitles(h *host, conn Conn) error {
	ctx, cancel := context.WithTimeout(c.bgCtx, c.opts.HostTimeout)
	defer cancel()
	if err := c.headRead(ctx, h, conn); err != nil {
		return err
	}
	started := c.opts.Now()
	pager := appserver.NewThreadPager[ListedThread](conn, appserver.ThreadListParams{
		Limit: NativePageSize, Archived: new(true), UseStateDBOnly: true})
	for !pager.Done() && pager.Pages() < maxTitlePages {
		data, err := pager.Next(ctx)
		if err != nil {
			return err
		}
		for _, th := range data {
			h.titles.remove(th.ID, started)
		}
	}
	t := h.titles
	t.mu.Lock()
	t.raise(titlesChecked)
	t.mu.Unlock()
	return nil
}

// headRead indexes the threads updated since the watermark: with sortKey updated_at they
// come first, so it reads until a page reaches below the watermark, one or two pages.
func (c *Catalog) headRead(ctx context.Context, h *host, conn Conn) error {
	t := h.titles
	t.mu.Lock()
	floor := t.watermark - watermarkSlack
	t.headStale = false
	t.mu.Unlock()
	started := c.opts.Now()
	pager := appserver.NewThreadPager[ListedThread](conn, appserver.ThreadListParams{
		Limit: NativePageSize, Archived: appserver.Unarchived(), UseStateDBOnly: true, SortKey: "updated_at"})
	// The newest row when the read started: what changes during the read is above it.
	newest := int64(-1)
	for !pager.Done() && pager.Pages() < maxTitlePages {
		data, err := pager.Next(ctx)
		if err != nil {
			return err
		}
		if newest < 0 && len(data) > 0 {
			newest = data[0].UpdatedAt
		}
		reached := false
		t.mu.Lock()
		for _, th := range data {
			if r, ok := project(th); ok {
				r.at = started
				t.upsertLocked(r, started)
			}
			reached = reached || th.UpdatedAt < floor
		}
		t.mu.Unlock()
		if reached {
			break
		}
	}
	t.mu.Lock()
	t.headAt = started
	t.raiseWatermark(newest)
	t.mu.Unlock()
	return nil
}

// titlesDue says whether keep-warm renews the title index now: its last full read would
// be stale within two refresh periods.
func (c *Catalog) titlesDue(h *host, now time.Time) bool {
	t := h.titles
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state != titlesExact || now.Sub(t.exactAt) >= c.opts.PageTTL-2*c.refreshEvery()
}

// titlesHeadStale asks the next search to read the newest rows of the title index.
func (h *host) titlesHeadStale() {
	if h.titles == nil {
		return
	}
	h.titles.mu.Lock()
	h.titles.headStale = true
	h.titles.mu.Unlock()
}
