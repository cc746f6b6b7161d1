package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// These tests run the catalog as a command does that embeds a runtime for one call
// (Options.OneShot) against the real App Server, on a home of more than one native page.

// forkedHome makes n threads besides a seed on home, as the benchmark home is made (thread/fork
// of a stored thread, then named), every every-th of them named with "needle". It returns
// the ids of the needle threads, newest created first.
func forkedHome(t *testing.T, e *realEnv, c *appserver.Client, n, every int) []string {
	t.Helper()
	ctx := context.Background()
	seed := e.thread(c, "needle seed", "the seed")
	names := make([]string, n)
	made := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("thread %03d", i)
		if i%every == 0 {
			names[i] = fmt.Sprintf("thread %03d with the needle", i)
		}
	}
	// Made one at a time: the native order (createdAt, then id) is then the order of i.
	for i := range n {
		res, err := c.ThreadFork(ctx, appserver.ThreadForkParams{ThreadID: seed, ExcludeTurns: true})
		if err == nil {
			err = c.Call(ctx, "thread/name/set", map[string]any{"threadId": res.Thread.ID, "name": names[i]}, nil)
		}
		if err == nil {
			_, err = c.ThreadUnsubscribe(ctx, res.Thread.ID)
		}
		if err != nil {
			t.Fatal(err)
		}
		made[i] = res.Thread.ID
	}
	needles := []string{seed}
	for i := range n {
		if i%every == 0 {
			needles = append(needles, made[i])
		}
	}
	slices.Reverse(needles)
	return needles
}

// countingConn counts what a catalog asks the App Server: thread/list by order and
// thread/read.
type countingConn struct {
	*appserver.Client
	mu      sync.Mutex
	native  int // thread/list of unarchived threads in the native order (a full read's pages)
	updated int // thread/list by updated_at (the newest rows)
	archive int // thread/list of archived threads
	reads   atomic.Int32
}

func (c *countingConn) Call(ctx context.Context, method string, params, out any) error {
	if p, ok := params.(appserver.ThreadListParams); ok && method == appserver.MethodThreadList {
		c.mu.Lock()
		switch {
		case p.Archived != nil && *p.Archived:
			c.archive++
		case p.SortKey == "updated_at":
			c.updated++
		default:
			c.native++
		}
		c.mu.Unlock()
	}
	if method == appserver.MethodThreadRead {
		c.reads.Add(1)
	}
	return c.Client.Call(ctx, method, params, out)
}

func (c *countingConn) counts() (native, updated, archive int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.native, c.updated, c.archive
}

// oneShotSearch runs one search as a one-shot command does: a new catalog on the index
// directory, one List call, Close.
func oneShotSearch(t *testing.T, e *realEnv, conn Conn, dir string, opts Options) api.CatalogHostSessions {
	t.Helper()
	opts.IndexDir, opts.OneShot = dir, true
	cat := e.catalog([]HostSpec{{ID: LocalHostID, Default: true, Source: SourceFunc(func(context.Context) (Conn, error) { return conn, nil })}}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cat.List(ctx, api.CatalogSessionsParams{Host: LocalHostID, Search: "NEEDLE", Limit: 50}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Close(); err != nil {
		t.Fatal(err)
	}
	return res.Hosts[0]
}

// A one-shot search on a host with no index yet fills its page in the one call, however
// many native pages its matches are spread over (here a budget of one page a call, on a home
// of two), and the index it read is written when the command ends, with its watermark.
// The next one-shot search answers from that file: it reads the newest rows and the archived
// list (which shows a thread made meanwhile) and thread/read of its matches, never a page of
// the full read; the file is then extended with the new thread.
func TestOneShotSearchFillsItsPageAndKeepsTheIndex(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	home := e.home()
	author := e.client(home)
	want := forkedHome(t, e, author, 140, 35) // 141 threads: needles on both native pages
	dir := filepath.Join(t.TempDir(), "index")

	first := &countingConn{Client: e.client(home)}
	p := oneShotSearch(t, e, first, dir, Options{SearchPages: 1})
	if p.Error != nil || p.NextCursor != "" || p.Revalidating || idList(p) != idList(api.CatalogHostSessions{Sessions: sessionsOf(want)}) {
		t.Fatalf("first one-shot search: want every match %v in one exact page, got %+v", want, p)
	}
	if n, _, _ := first.counts(); n < 2 {
		t.Fatalf("the first search read %d native pages of a home of two", n)
	}
	hd, entries, err := readTitlesFile(titlesPath(dir, LocalHostID))
	if err != nil || len(entries) != 141 || hd.Watermark <= 0 {
		t.Fatalf("the one-shot command left no whole index: %d rows, watermark %d, %v", len(entries), hd.Watermark, err)
	}

	fresh := e.thread(author, "a needle made meanwhile", "hello")
	next := &countingConn{Client: e.client(home)}
	p = oneShotSearch(t, e, next, dir, Options{SearchPages: 1})
	if p.Error != nil || p.NextCursor != "" || idList(p) != idList(api.CatalogHostSessions{Sessions: sessionsOf(append([]string{fresh}, want...))}) {
		t.Fatalf("next one-shot search: want %s then %v, got %+v", fresh, want, p)
	}
	if !p.Revalidating {
		t.Fatal("an answer from a stored index not confirmed by a full read does not say so")
	}
	if n, u, a := next.counts(); n != 0 || u == 0 || a == 0 {
		t.Fatalf("the next search was not answered from the index: native pages %d, newest-rows pages %d, archived pages %d", n, u, a)
	}
	if r := int(next.reads.Load()); r > len(want) {
		t.Fatalf("%d thread/read for %d matches", r, len(want))
	}
	hd2, entries, err := readTitlesFile(titlesPath(dir, LocalHostID))
	if err != nil || len(entries) != 142 || hd2.Watermark < hd.Watermark {
		t.Fatalf("the index was not extended: %d rows, watermark %d -> %d, %v", len(entries), hd.Watermark, hd2.Watermark, err)
	}
}

func sessionsOf(ids []string) []api.CatalogSession {
	out := make([]api.CatalogSession, len(ids))
	for i, id := range ids {
		out[i].ID = id
	}
	return out
}
