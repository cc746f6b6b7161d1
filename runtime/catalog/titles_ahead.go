package catalog

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// nativeAhead reads the native pages of a full read one ahead: the next page is asked for as
// soon as the cursor of the one before is known, before its rows are decoded, so that the App
// Server reads a page while this side decodes the one before. A page costs the App Server
// about 10 ms of CPU and its decoding here a few: in turn they add up, overlapped the slower
// one sets the pace (bench/catalog-10k.sh). The cursor is found by a scan of the answer that
// decodes none of its rows.
type nativeAhead struct {
	ctx     context.Context // the full read's: a read begun ahead ends with it
	conn    Conn
	now     func() time.Time
	timeout time.Duration // of one page
	pending map[string]chan aheadPage
	seen    map[string]bool
	oldest  bool // pages run oldest first (the tail of a two-ended sweep)
}

type aheadPage struct {
	list    rawList
	started time.Time
	err     error
}

// rawList is a thread/list answer with its rows left undecoded.
type rawList struct {
	Data       json.RawMessage `json:"data"`
	NextCursor *string         `json:"nextCursor"`
}

func newNativeAhead(ctx context.Context, conn Conn, now func() time.Time, timeout time.Duration) *nativeAhead {
	return &nativeAhead{ctx: ctx, conn: conn, now: now, timeout: timeout, pending: map[string]chan aheadPage{}, seen: map[string]bool{"": true}}
}

func (a *nativeAhead) begin(pos string) chan aheadPage {
	ch := make(chan aheadPage, 1)
	go func() {
		ctx, cancel := context.WithTimeout(a.ctx, a.timeout)
		defer cancel()
		// Stamped before the call: a change seen while it runs may not be in the answer.
		p := aheadPage{started: a.now()}
		params := storedThreads(pos, NativePageSize)
		if a.oldest {
			params.SortDirection = "asc"
		}
		p.err = a.conn.Call(ctx, appserver.MethodThreadList, params, &p.list)
		ch <- p
	}()
	return ch
}

// read returns the page at pos, from the read begun ahead when there is one, and begins the
// read of the page after it. Its paging ends as a ThreadPager's does: no next cursor, or
// one that does not advance (an empty page, a cursor seen before).
func (a *nativeAhead) read(ctx context.Context, pos string) (*segment, error) {
	ch := a.pending[pos]
	delete(a.pending, pos)
	if ch == nil {
		ch = a.begin(pos)
	}
	var p aheadPage
	select {
	case p = <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.err != nil {
		return nil, p.err
	}
	next := ""
	if p.list.NextCursor != nil {
		next = *p.list.NextCursor
	}
	empty := len(p.list.Data) == 0 || string(p.list.Data) == "[]" || string(p.list.Data) == "null"
	if next == "" || empty || a.seen[next] {
		next = ""
	} else {
		a.seen[next] = true
		a.pending[next] = a.begin(next)
	}
	var data []ListedThread
	if !empty {
		if err := json.Unmarshal(p.list.Data, &data); err != nil {
			return nil, err
		}
	}
	s := &segment{rows: make([]row, 0, len(data)), fetched: p.started, next: next, end: next == ""}
	for _, t := range data {
		if r, ok := project(t); ok {
			r.at = p.started
			s.rows = append(s.rows, r)
		}
	}
	return s, nil
}

// drop forgets the read begun ahead of pos (another read served it).
func (a *nativeAhead) drop(pos string) { delete(a.pending, pos) }
