package catalog

import (
	"context"
	"fmt"
	"sync"
)

// sweep reads every unarchived thread from both ends at once: the head newest first through
// the host's page index (so that the lists and the read-ahead share its reads), the tail
// oldest first, until they meet. The App Server answers the two in parallel, so a first full
// read takes about half the time of one reader paging to the end (bench/titles-oneshot.sh).
// Creation order does not change within a read, so where one end reads an id the other has
// read, the two have covered every row between them. At the end every title is confirmed
// and what neither end saw (deleted, archived) is dropped, unless changed after it started.
func (c *Catalog) sweep(h *host, conn Conn) error {
	pass := c.opts.Now()
	meet := &sweepMeet{seen: [2]map[string]bool{{}, {}}}
	tctx, stopTail := context.WithCancel(c.bgCtx)
	var tail sync.WaitGroup
	tail.Add(1)
	go func() {
		defer tail.Done()
		// A tail that fails only leaves more to the head, which alone reads to the end.
		_ = c.sweepTail(tctx, h, conn, meet)
	}()
	newest, err := c.sweepHead(h, conn, meet)
	stopTail()
	tail.Wait()
	if err != nil {
		return err
	}
	t := h.titles
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, e := range t.entries {
		if !meet.seen[0][id] && !meet.seen[1][id] && e.at.Before(pass) {
			delete(t.entries, id)
			t.dirty = true
		}
	}
	t.exactAt, t.headAt = pass, pass
	t.raiseWatermark(newest)
	t.raise(titlesExact)
	return nil
}

// sweepMeet is where the two ends of a sweep meet: the ids each has read.
type sweepMeet struct {
	mu   sync.Mutex
	seen [2]map[string]bool // [0] the head's, [1] the tail's
	met  bool
}

const (
	sweepHeadEnd = 0
	sweepTailEnd = 1
)

// read records the rows one end has read and says whether the sweep has read everything:
// this end met the other, or read to its end.
func (m *sweepMeet) read(end int, s *segment) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	other := m.seen[1-end]
	for _, r := range s.rows {
		if other[r.s.ID] {
			m.met = true
		}
		m.seen[end][r.s.ID] = true
	}
	m.met = m.met || s.end
	return m.met
}

// sweepHead reads newest first through the page index until the sweep has read everything,
// and returns the newest update among the first page's rows: no later than that page's read,
// so a thread created or unarchived after it (above every page read) stays above the
// watermark.
func (c *Catalog) sweepHead(h *host, conn Conn, meet *sweepMeet) (int64, error) {
	pos := ""
	newest := int64(-1)
	actx, stop := context.WithCancel(c.bgCtx)
	defer stop()
	ahead := newNativeAhead(actx, conn, c.opts.Now, c.opts.HostTimeout)
	for pages := 0; ; pages++ {
		if pages >= maxTitlePages {
			return newest, fmt.Errorf("the thread list did not end after %d pages", pages)
		}
		h.mu.Lock()
		h.prepare(c.opts.Now(), c.opts.IndexTTL, c.opts.PageTTL)
		epoch, gen, cur := h.idx.epoch, h.idx.gen, h.idx.segs[pos]
		h.mu.Unlock()
		ctx, cancel := context.WithTimeout(c.bgCtx, c.opts.HostTimeout)
		ours := false
		s, err := h.shared(ctx, pos, epoch, func() (*segment, error) {
			ours = true
			return ahead.read(ctx, pos)
		})
		cancel()
		if err != nil {
			return newest, err
		}
		if !ours {
			ahead.drop(pos)
		}
		h.mu.Lock()
		if now := h.idx.segs[pos]; (now == nil || now == cur) && epoch == h.idx.epoch && gen == h.idx.gen && gen == h.failGeneration() {
			h.put(pos, s, c.opts.Now(), c.opts.PageTTL)
		}
		h.mu.Unlock()
		c.sweepTake(h, s)
		if pages == 0 {
			for _, r := range s.rows {
				newest = max(newest, r.s.UpdatedAt.Unix())
			}
		}
		if meet.read(sweepHeadEnd, s) {
			return newest, nil
		}
		pos = s.next
	}
}

// sweepTail reads oldest first, outside the page index (its cursors are not the lists'),
// until the sweep has read everything or ctx ends.
func (c *Catalog) sweepTail(ctx context.Context, h *host, conn Conn, meet *sweepMeet) error {
	ahead := newNativeAhead(ctx, conn, c.opts.Now, c.opts.HostTimeout)
	ahead.oldest = true
	pos := ""
	for pages := 0; pages < maxTitlePages; pages++ {
		pctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
		s, err := ahead.read(pctx, pos)
		cancel()
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.sweepTake(h, s)
		if meet.read(sweepTailEnd, s) {
			return nil
		}
		pos = s.next
	}
	return fmt.Errorf("the oldest-first thread list did not end after %d pages", maxTitlePages)
}

func (c *Catalog) sweepTake(h *host, s *segment) {
	h.titles.mu.Lock()
	for _, r := range s.rows {
		h.titles.upsertLocked(r, s.fetched)
	}
	h.titles.mu.Unlock()
}
