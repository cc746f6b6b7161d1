package appserver

import "context"

// ThreadPager walks thread/list one page at a time, each thread decoded as T (see
// ListThreadsAs). The walk ends where the App Server gives no next cursor. A page that is
// empty, or a next cursor seen before, while a next cursor is given means its paging does not
// advance: the walk ends there too, and Looped reports it. Each caller bounds the pages.
type ThreadPager[T any] struct {
	c      Caller
	params ThreadListParams
	seen   map[string]bool
	pages  int
	done   bool
	looped bool
}

// NewThreadPager starts a walk at p.Cursor with pages of p.Limit threads.
func NewThreadPager[T any](c Caller, p ThreadListParams) *ThreadPager[T] {
	return &ThreadPager[T]{c: c, params: p, seen: map[string]bool{p.Cursor: true}}
}

// SetLimit changes the size of the pages read from now on.
func (p *ThreadPager[T]) SetLimit(n int) { p.params.Limit = n }

// Next reads the next page. After an error the pager stays where it was.
func (p *ThreadPager[T]) Next(ctx context.Context) ([]T, error) {
	res, err := ListThreadsAs[T](ctx, p.c, p.params)
	if err != nil {
		return nil, err
	}
	p.pages++
	switch next := res.NextCursor; {
	case next == nil || *next == "":
		p.done = true
	case len(res.Data) == 0 || p.seen[*next]:
		p.done, p.looped = true, true
	default:
		p.seen[*next] = true
		p.params.Cursor = *next
	}
	return res.Data, nil
}

// Done reports that the walk ended: the list ended, or its paging did not advance.
func (p *ThreadPager[T]) Done() bool { return p.done }

// Looped reports a walk that ended because the App Server's paging did not advance.
func (p *ThreadPager[T]) Looped() bool { return p.looped }

// Cursor is where the next page starts ("" once Done, or before the first page of a walk
// from the start).
func (p *ThreadPager[T]) Cursor() string {
	if p.done {
		return ""
	}
	return p.params.Cursor
}

// Pages counts the pages read.
func (p *ThreadPager[T]) Pages() int { return p.pages }
