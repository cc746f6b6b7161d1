package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// These tests run the title index against the real App Server: one process makes the
// changes (as Codex Desktop would on the same home) while the catalog's runtime is down, and
// a fresh App Server serves the next run, as after a restart.

// listed is a thread/list row as far as the ordering tests read it.
type listed struct {
	ID        string  `json:"id"`
	Name      *string `json:"name"`
	UpdatedAt int64   `json:"updatedAt"`
}

func listByUpdated(t *testing.T, c *appserver.Client, archived bool) []listed {
	t.Helper()
	p := appserver.ThreadListParams{Limit: 100, Archived: new(archived), UseStateDBOnly: true, SortKey: "updated_at"}
	page, err := appserver.ListThreadsAs[listed](context.Background(), c, p)
	if err != nil {
		t.Fatal(err)
	}
	return page.Data
}

func rowOf(rows []listed, id string) (int, listed) {
	for i, r := range rows {
		if r.ID == id {
			return i, r
		}
	}
	return -1, listed{}
}

// The ordering the title index relies on, checked on this Codex: with useStateDbOnly and
// sortKey updated_at an unarchived thread returns at the head with a newer updatedAt and an
// archived one is in the archived list, keeping its updatedAt (not at that list's head). A
// rename shows its new name but is not promised to move the thread, which is why a stored
// index needs a full read to be exact.
func TestAppServerUpdatedAtOrdering(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	c := e.client(e.home())
	ctx := context.Background()
	a := e.thread(c, "alpha", "one")
	b := e.thread(c, "bravo", "two")
	// updatedAt has whole seconds: the changes below happen in a later second than the
	// threads were made in, so a move to the head would show.
	time.Sleep(1100 * time.Millisecond)
	before := listByUpdated(t, c, false)
	posA, oldA := rowOf(before, a)
	if err := c.Call(ctx, "thread/name/set", map[string]any{"threadId": a, "name": "alpha renamed"}, nil); err != nil {
		t.Fatal(err)
	}
	after := listByUpdated(t, c, false)
	i, newA := rowOf(after, a)
	if i < 0 || newA.Name == nil || *newA.Name != "alpha renamed" {
		t.Fatalf("rename: expected the new name in the list; got at %d %+v", i, newA)
	}
	// Whether a rename moves the thread is not promised: mostly it keeps its updatedAt and
	// place, but a write of the thread landing late may bump it. The index relies on neither.
	t.Logf("rename: place %d -> %d, updatedAt %d -> %d", posA, i, oldA.UpdatedAt, newA.UpdatedAt)
	_, oldB := rowOf(after, b)
	if err := appserver.On(c).ThreadArchive(ctx, b); err != nil {
		t.Fatal(err)
	}
	arch := listByUpdated(t, c, true)
	if j, r := rowOf(arch, b); j < 0 || r.UpdatedAt != oldB.UpdatedAt {
		t.Fatalf("archive: expected b in the archived list with its updatedAt %d; got at %d %+v", oldB.UpdatedAt, j, r)
	}
	if j, _ := rowOf(listByUpdated(t, c, false), b); j >= 0 {
		t.Fatal("an archived thread is still in the unarchived list")
	}
	if _, err := appserver.On(c).ThreadUnarchive(ctx, b); err != nil {
		t.Fatal(err)
	}
	back := listByUpdated(t, c, false)
	if back[0].ID != b || back[0].UpdatedAt <= oldB.UpdatedAt {
		t.Fatalf("unarchive: expected b at the head with a newer updatedAt than %d; got %+v", oldB.UpdatedAt, back)
	}
}

// sweepGate holds the full reads of the title index (thread/list in the native order) of a
// real App Server until released, so a test sees what the index answers before it is exact.
type sweepGate struct {
	*appserver.Client
	release chan struct{}
}

func (g *sweepGate) Call(ctx context.Context, method string, params, out any) error {
	if p, ok := params.(appserver.ThreadListParams); ok && method == appserver.MethodThreadList && p.SortKey == "" &&
		p.Archived != nil && !*p.Archived && p.AncestorThreadID == "" {
		select {
		case <-g.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.Client.Call(ctx, method, params, out)
}

func gatedSpec(c *appserver.Client) (HostSpec, *sweepGate) {
	g := &sweepGate{Client: c, release: make(chan struct{})}
	return HostSpec{ID: LocalHostID, Default: true, Source: SourceFunc(func(context.Context) (Conn, error) { return g, nil })}, g
}

// buildIndex runs a runtime's catalog until its title index is exact, then stops it, so its
// file is left for the next run.
func buildIndex(t *testing.T, e *realEnv, c *appserver.Client, dir string) {
	t.Helper()
	cat, err := New([]HostSpec{localSpec(c)}, Options{IndexDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cat.Warm()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if !cat.waitExact(ctx, cat.byID[LocalHostID]) {
		t.Fatal("the title index did not become exact")
	}
	_ = cat.Close()
}

// searchProgress runs a search that asks for progress while the sweep is held, returns the
// page shown first, then releases the sweep and returns the final page.
func searchProgress(t *testing.T, cat *Catalog, g *sweepGate, search string) (first, final api.CatalogHostSessions) {
	t.Helper()
	var mu sync.Mutex
	var pages []api.CatalogHostSessions
	got := make(chan struct{}, 4)
	done := make(chan api.CatalogSessionsResult, 1)
	go func() {
		res, err := cat.List(context.Background(), api.CatalogSessionsParams{Host: LocalHostID, Search: search}, func(p api.CatalogHostSessions) {
			mu.Lock()
			pages = append(pages, p)
			mu.Unlock()
			got <- struct{}{}
		})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-got:
	case <-time.After(60 * time.Second):
		t.Fatal("no page before the full read")
	}
	mu.Lock()
	first = pages[0]
	mu.Unlock()
	close(g.release)
	res := <-done
	if len(pages) != 2 {
		t.Fatalf("expected the revalidating page and the exact one, got %d pages: %+v", len(pages), pages)
	}
	return first, res.Hosts[0]
}

func idList(p api.CatalogHostSessions) string { return strings.Join(ids(p.Sessions), ",") }

// A stored title index answers a restarted runtime's search before any full read: it is
// checked first (an archived thread never shows; a new and an unarchived thread do), the
// answer says it is revalidating, and the exact page follows once the full read confirmed
// every title (a thread renamed elsewhere into the search shows then). The file is 0600 and
// holds titles and times, never a conversation's text.
func TestTitleIndexRevalidatesAcrossRuns(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	home := e.home()
	author := e.client(home) // another process on the same home
	ctx := context.Background()
	a := e.thread(author, "Needle alpha", "PREVIEW-SECRET a")
	y := e.thread(author, "needle yankee", "PREVIEW-SECRET y")
	z := e.thread(author, "needle zulu", "PREVIEW-SECRET z")
	x := e.thread(author, "xray plain", "PREVIEW-SECRET x")
	if err := appserver.On(author).ThreadArchive(ctx, z); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "index")
	run1 := e.client(home)
	buildIndex(t, e, run1, dir)
	_ = run1.Close()

	path := titlesPath(dir, LocalHostID)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("index file: %v %v", fi, err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "PREVIEW-SECRET") || strings.Contains(string(raw), home) || !strings.Contains(string(raw), a) {
		t.Fatalf("index file holds more or less than titles and times:\n%s", raw)
	}

	// Changes while no runtime runs.
	if err := author.Call(ctx, "thread/name/set", map[string]any{"threadId": x, "name": "needle xray"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := appserver.On(author).ThreadArchive(ctx, y); err != nil {
		t.Fatal(err)
	}
	if _, err := appserver.On(author).ThreadUnarchive(ctx, z); err != nil {
		t.Fatal(err)
	}
	n := e.thread(author, "needle november", "PREVIEW-SECRET n")

	spec, gate := gatedSpec(e.client(home))
	cat := e.catalog([]HostSpec{spec}, Options{IndexDir: dir})
	first, final := searchProgress(t, cat, gate, "NEEDLE")
	// Newest created first: n, x, z, a (y is archived). The check reads whole pages of the
	// newest rows, so x may show already (here all threads fit in one page); on a large home
	// only the full read finds it.
	shown := []string{}
	for _, id := range ids(first.Sessions) {
		if id != x {
			shown = append(shown, id)
		}
	}
	if !first.Revalidating || first.Error != nil || strings.Join(shown, ",") != n+","+z+","+a {
		t.Fatalf("first page: want revalidating %s,%s,%s; got %+v", n, z, a, first)
	}
	if final.Revalidating || final.Error != nil || idList(final) != n+","+x+","+z+","+a {
		t.Fatalf("exact page: want %s,%s,%s,%s; got %+v", n, x, z, a, final)
	}
	for _, s := range final.Sessions {
		if s.Cwd == "" || s.Source != "vscode" {
			t.Fatalf("row without its projection: %+v", s)
		}
	}
	_ = cat.Close()
	_, entries, err := readTitlesFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, en := range entries {
		got[en.id] = en.title
	}
	if _, has := got[y]; has || got[x] != "needle xray" || got[n] != "needle november" {
		t.Fatalf("index file after the exact read: %v", got)
	}
}

// A Codex home deleted between runs and made anew: the stored index's threads are gone, and
// none of them is answered, not even before the full read.
func TestTitleIndexHomeDeletedBetweenRuns(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	home := e.home()
	config, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	run1 := e.client(home)
	old := e.thread(run1, "needle old", "hello")
	dir := filepath.Join(t.TempDir(), "index")
	buildIndex(t, e, run1, dir)
	_ = run1.Close()

	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	run2 := e.client(home)
	fresh := e.thread(run2, "needle new", "hello")
	spec, gate := gatedSpec(run2)
	cat := e.catalog([]HostSpec{spec}, Options{IndexDir: dir})
	first, final := searchProgress(t, cat, gate, "needle")
	if idList(first) != fresh || idList(final) != fresh || final.Revalidating {
		t.Fatalf("want only %s (not %s); first %+v final %+v", fresh, old, first, final)
	}
}

// A new thread made elsewhere while the runtime runs shows in a search once the newest rows
// are read again, after IndexTTL (an injected clock), without a full read.
func TestTitleIndexNewThreadAfterHeadTTL(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	home := e.home()
	author := e.client(home)
	a := e.thread(author, "needle one", "hello")
	clk := newClock()
	c := e.client(home)
	cat := e.catalog([]HostSpec{localSpec(c)}, Options{IndexDir: t.TempDir(), Now: clk.now, KeepWarm: 0})
	cat.Warm()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h := cat.byID[LocalHostID]
	if !cat.waitExact(ctx, h) {
		t.Fatal("not exact")
	}
	search := func() api.CatalogHostSessions {
		res, err := cat.List(ctx, api.CatalogSessionsParams{Host: LocalHostID, Search: "needle"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hosts[0]
	}
	b := e.thread(author, "needle two", "hello")
	if p := search(); idList(p) != a || p.Revalidating {
		t.Fatalf("within IndexTTL the index answers as read: %+v", p)
	}
	clk.add(DefaultIndexTTL)
	if p := search(); idList(p) != b+","+a || p.Revalidating {
		t.Fatalf("after IndexTTL the newest rows are read: %+v", p)
	}
	clk.add(DefaultPageTTL)
	if p := search(); !p.Revalidating {
		t.Fatalf("after PageTTL without a full read the answer is revalidating: %+v", p)
	}
}
