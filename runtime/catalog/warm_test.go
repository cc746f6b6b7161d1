package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
)

// warmFixture is newFixture with cursors anchored as the App Server's are. The keep-warm
// loop's ticker is not part of these tests: they run refresh by hand, on the fixture's clock.
func warmFixture(t *testing.T, n int, opts Options) *fixture {
	t.Helper()
	if opts.ReadAheadPages == 0 {
		opts.ReadAheadPages = 100
	}
	fx := newFixture(t, n, opts)
	fx.local.conn.anchored, fx.extra.conn.anchored = true, true
	fx.cat.warming.Store(true)
	t.Cleanup(func() { _ = fx.cat.Close() })
	return fx
}

// settle waits until no read-ahead runs.
func (fx *fixture) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // only reached when something is broken
	for _, h := range fx.cat.hosts {
		for h.ahead.Load() {
			if time.Now().After(deadline) {
				t.Fatal("the read-ahead did not finish")
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// searchAll pages a title search over the local host to its end, as a caller following the
// cursors does; it returns the ids found.
func (fx *fixture) searchAll(t *testing.T, text string) []string {
	t.Helper()
	ids, err := fx.searchIDs(text)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func (fx *fixture) searchIDs(text string) ([]string, error) {
	var ids []string
	p := api.CatalogSessionsParams{Host: LocalHostID, Search: text, Limit: MaxLimit}
	for range 1000 {
		res, err := fx.cat.List(context.Background(), p, nil)
		if err != nil {
			return nil, err
		}
		if e := res.Hosts[0].Error; e != nil {
			return nil, fmt.Errorf("search %q: %w", text, e)
		}
		for _, s := range res.Hosts[0].Sessions {
			ids = append(ids, s.ID)
		}
		if p.Cursor = res.Hosts[0].NextCursor; p.Cursor == "" {
			return ids, nil
		}
	}
	return nil, fmt.Errorf("search %q never ended", text)
}

func (f *fakeConn) rename(i int, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.threads[i]["name"] = name
}

func (f *fakeConn) cursors() []string {
	var out []string
	for _, p := range f.callsOf("thread/list") {
		c, _ := p["cursor"].(string)
		out = append(out, c)
	}
	return out
}

func threadID(i int) string { return fakeThread(i, "")["id"].(string) }

// hold returns a gate that holds the first read at cursor until release, and a channel
// closed once that read is held. A failing test releases it too, so nothing hangs.
func hold(t *testing.T, at string) (gate func(string), entered <-chan struct{}, release func()) {
	held, in := make(chan struct{}), make(chan struct{})
	var once, rel sync.Once
	release = func() { rel.Do(func() { close(held) }) }
	t.Cleanup(release)
	gate = func(cursor string) {
		if cursor == at {
			once.Do(func() { close(in); <-held })
		}
	}
	return gate, in, release
}

// Scenario: S003-L — a search that starts while the read-ahead reads the pages it needs
// waits for those reads instead of asking the App Server a second time: every native page
// is read once, and the search still finds every title.
func TestSearchWaitsForThePagesTheReadAheadReads(t *testing.T) {
	t.Parallel()
	fx := warmFixture(t, 1000, Options{IndexTTL: time.Hour})
	conn := fx.local.conn
	conn.rename(420, "the Needle")
	conn.rename(960, "another needle")
	gate, entered, release := hold(t, "")
	conn.gate = gate
	fx.cat.Warm()
	<-entered // the read-ahead is inside the newest page
	type answer struct {
		ids []string
		err error
	}
	found := make(chan answer, 1)
	go func() {
		ids, err := fx.searchIDs("needle")
		found <- answer{ids, err}
	}()
	h := fx.cat.byID[LocalHostID]
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		h.fl.mu.Lock()
		f := h.fl.m[""]
		h.fl.mu.Unlock()
		if f != nil && f.waiters.Load() == 1 {
			break // the search waits for the read-ahead's read of the newest page
		}
		if time.Now().After(deadline) {
			t.Fatalf("the search did not wait for the read under way; reads: %q", conn.cursors())
		}
	}
	release()
	if a := <-found; a.err != nil || !slices.Equal(a.ids, []string{threadID(420), threadID(960)}) {
		t.Fatalf("found %v, %v", a.ids, a.err)
	}
	fx.settle(t)
	cursors := conn.cursors()
	seen := map[string]bool{}
	for _, c := range cursors {
		if seen[c] {
			t.Fatalf("page %q read twice: %q", c, cursors)
		}
		seen[c] = true
	}
	if len(cursors) != 10 {
		t.Fatalf("%d native reads of 1000 threads in pages of 100: %q", len(cursors), cursors)
	}
}

// Scenario: S003-L — a runtime reads its hosts ahead from the start, so its first search is
// served from memory; kept warm, the index renews its pages before they expire, so it stays
// warm and changes another process made (a rename, an archive) show without the search
// reading anything itself.
func TestWarmIndexIsReadAtStartAndRenewedBeforeItExpires(t *testing.T) {
	t.Parallel()
	fx := warmFixture(t, 1000, Options{KeepWarm: 10 * time.Minute}) // pages live 1 min, the newest 10 s
	conn := fx.local.conn
	conn.rename(420, "the Needle")
	fx.cat.Warm()
	fx.settle(t)
	read := conn.count("thread/list")
	if read != 10 {
		t.Fatalf("warm-up read %d pages of 1000 threads", read)
	}
	if ids := fx.searchAll(t, "needle"); !slices.Equal(ids, []string{threadID(420)}) || conn.count("thread/list") != read {
		t.Fatalf("first search: %v, %d native reads", ids, conn.count("thread/list")-read)
	}

	// Another process renames one thread and archives another: no notification reaches here.
	fx.clock.add(31 * time.Second)
	conn.rename(777, "renamed elsewhere, a needle too")
	conn.mu.Lock()
	conn.threads = slices.Delete(conn.threads, 420, 421)
	conn.mu.Unlock()
	fx.cat.refresh()
	fx.settle(t)
	if n := conn.count("thread/list") - read; n != 10 {
		t.Fatalf("keep-warm read %d pages, want each once", n)
	}
	// Past the life of the pages first read: the renewed ones serve, fresh; only the newest
	// page, whose life is shorter than a refresh, is read again.
	fx.clock.add(30 * time.Second)
	read = conn.count("thread/list")
	if ids := fx.searchAll(t, "needle"); !slices.Equal(ids, []string{threadID(777)}) || conn.count("thread/list") != read+1 {
		t.Fatalf("search after the changes: %v, %d native reads", ids, conn.count("thread/list")-read)
	}
	read = conn.count("thread/list")
	// Unused for longer than KeepWarm, the index is no longer renewed.
	fx.clock.add(11 * time.Minute)
	fx.cat.refresh()
	fx.settle(t)
	if conn.count("thread/list") != read {
		t.Fatal("keep-warm renewed an index nobody used")
	}
}

// Scenario: S003-L — threads new since the index was read sit above it: reading the newest
// page again shows them, and the resident pages after it keep serving (the page is spliced
// onto them), so a search over the whole host reads one page, not all of them, and lists
// every thread exactly once.
func TestNewThreadsCostOnlyTheNewestPage(t *testing.T) {
	t.Parallel()
	fx := warmFixture(t, 1000, Options{IndexTTL: time.Hour})
	conn := fx.local.conn
	fx.cat.Warm()
	fx.settle(t)
	read := conn.count("thread/list")

	conn.mu.Lock()
	var fresh []map[string]any
	for i := 1; i <= 3; i++ {
		th := fakeThread(-i, fmt.Sprintf("brand new %d", i))
		th["createdAt"] = 1796000000 + i
		fresh = append([]map[string]any{th}, fresh...)
	}
	conn.threads = append(fresh, conn.threads...)
	conn.mu.Unlock()
	// A status change of a thread the index does not hold: it is likely new.
	fx.cat.ObserveStatus(LocalHostID, fresh[0]["id"].(string), "active")

	all := fx.searchAll(t, "")
	if n := conn.count("thread/list") - read; n != 1 {
		t.Fatalf("%d native reads after new threads, want the newest page only: %q", n, conn.cursors()[read:])
	}
	if len(all) != 1003 || all[0] != fresh[0]["id"] || all[3] != threadID(0) || all[1002] != threadID(999) {
		t.Fatalf("listing after new threads: %d rows, first %v", len(all), all[:5])
	}
	unique(t, all)

	// Another thread arrives while one near the top is archived elsewhere: the newest page
	// again ends where it did, and it alone is read.
	read = conn.count("thread/list")
	conn.mu.Lock()
	newest := fakeThread(-4, "brand new 4")
	newest["createdAt"] = 1796000000 + 4
	conn.threads = slices.Delete(conn.threads, 10, 11) // thread 7
	conn.threads = append([]map[string]any{newest}, conn.threads...)
	conn.mu.Unlock()
	fx.cat.ObserveStatus(LocalHostID, newest["id"].(string), "active")
	all = fx.searchAll(t, "")
	if n := conn.count("thread/list") - read; n != 1 {
		t.Fatalf("%d native reads, want the newest page only", n)
	}
	if len(all) != 1003 || all[0] != newest["id"] || slices.Contains(all, threadID(7)) {
		t.Fatalf("listing after another change: %d rows, first %v", len(all), all[:5])
	}
	unique(t, all)
}

func unique(t *testing.T, ids []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%s listed twice", id)
		}
		seen[id] = true
	}
}

// Scenario: S003-L — a thread unarchived while the read-ahead was reading the page it
// returns to: the index starts over, and the page read before the change is dropped rather
// than kept, so a search finds the thread.
func TestUnarchiveDropsAPageReadBeforeIt(t *testing.T) {
	t.Parallel()
	fx := warmFixture(t, 1000, Options{IndexTTL: time.Hour, SearchPages: 1})
	conn := fx.local.conn
	back := fakeThread(5000, "came back from the archive")
	back["createdAt"] = 1796000000 - 350 // between threads 350 and 351, in the fourth page
	fourth := strconv.Itoa(1796000000 - 299)
	gate, entered, release := hold(t, fourth)
	conn.gate = gate
	fx.cat.Warm()
	<-entered // the read-ahead read the fourth page without the thread and is about to answer

	conn.mu.Lock()
	conn.threads = slices.Insert(conn.threads, 351, back)
	conn.mu.Unlock()
	fx.cat.observe(fx.cat.byID[LocalHostID], note{method: "thread/unarchived", params: json.RawMessage(`{"threadId":"` + back["id"].(string) + `"}`)})
	fx.list(t, api.CatalogSessionsParams{Host: LocalHostID, Search: "nothing has this", Limit: 1}) // starts the index over
	release()
	fx.settle(t)

	if ids := fx.searchAll(t, "from the archive"); !slices.Equal(ids, []string{back["id"].(string)}) {
		t.Fatalf("the unarchived thread: found %v", ids)
	}
}
