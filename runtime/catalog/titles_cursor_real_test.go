package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
)

// searchAll pages a search with limit rows a page, following each answer's cursor, and
// returns the ids in the order shown and the pages' revalidating marks.
func searchAll(t *testing.T, cat *Catalog, search string, limit int) (shown []string, revalidating []bool) {
	t.Helper()
	cursor := ""
	for range 20 {
		res, err := cat.List(context.Background(), api.CatalogSessionsParams{Host: LocalHostID, Search: search, Limit: limit, Cursor: cursor}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Hosts[0]
		if p.Error != nil {
			t.Fatalf("page %d: %+v", len(revalidating), p.Error)
		}
		if len(p.Sessions) > limit {
			t.Fatalf("page of %d rows for a limit of %d", len(p.Sessions), limit)
		}
		shown = append(shown, ids(p.Sessions)...)
		revalidating = append(revalidating, p.Revalidating)
		if p.NextCursor == "" {
			return shown, revalidating
		}
		cursor = p.NextCursor
	}
	t.Fatal("the cursor never ended")
	return nil, nil
}

// A search answered from a stored index pages by cursor like any other: a restarted
// runtime, its full read held back, continues page after page from the index alone, every
// match once, newest created first, none of the archived, and each page says it is
// revalidating. Once the full read ran, the same paging is exact.
func TestTitleIndexCursorContinuesFromTheIndex(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	home := e.home()
	author := e.client(home)
	var want []string // newest created first
	for _, name := range []string{"needle 1", "needle 2", "plain", "needle 3", "needle 4", "needle 5"} {
		id := e.thread(author, name, "hello")
		if strings.HasPrefix(name, "needle") {
			want = append([]string{id}, want...)
		}
	}
	dir := filepath.Join(t.TempDir(), "index")
	run1 := e.client(home)
	buildIndex(t, e, run1, dir)
	_ = run1.Close()

	spec, gate := gatedSpec(e.client(home))
	cat := e.catalog([]HostSpec{spec}, Options{IndexDir: dir})
	shown, marks := searchAll(t, cat, "needle", 2)
	if strings.Join(shown, ",") != strings.Join(want, ",") {
		t.Fatalf("paged from the index: want %v, got %v", want, shown)
	}
	if len(marks) != 3 {
		t.Fatalf("want 3 pages of 2, got %d", len(marks))
	}
	for i, r := range marks {
		if !r {
			t.Fatalf("page %d answered from an index not yet revalidated without saying so", i)
		}
	}
	close(gate.release)
	ctx, cancel := context.WithTimeout(context.Background(), 60e9)
	defer cancel()
	if !cat.waitExact(ctx, cat.byID[LocalHostID]) {
		t.Fatal("the title index did not become exact")
	}
	shown, marks = searchAll(t, cat, "needle", 4)
	if strings.Join(shown, ",") != strings.Join(want, ",") || len(marks) != 2 || marks[0] || marks[1] {
		t.Fatalf("exact paging: want %v in 2 exact pages, got %v %v", want, shown, marks)
	}
}

// A host searched before any index file exists (a first run): the search pages the App
// Server itself and answers exactly, and the index it builds meanwhile is written, so the
// next runtime answers the same search from the file.
func TestTitleSearchOnAHostWithNoIndexFileYet(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	home := e.home()
	c := e.client(home)
	b := e.thread(c, "Needle one", "hello")
	e.thread(c, "other", "hello")
	a := e.thread(c, "the NEEDLE two", "hello")
	dir := filepath.Join(t.TempDir(), "index")
	path := titlesPath(dir, LocalHostID)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("an index file before the first run: %v", err)
	}
	cat := e.catalog([]HostSpec{localSpec(c)}, Options{IndexDir: dir})
	res, err := cat.List(context.Background(), api.CatalogSessionsParams{Host: LocalHostID, Search: "needle"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Hosts[0]; p.Error != nil || idList(p) != a+","+b || p.Revalidating {
		t.Fatalf("first search on a host with no index: want %s,%s exact, got %+v", a, b, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60e9)
	defer cancel()
	if !cat.waitExact(ctx, cat.byID[LocalHostID]) {
		t.Fatal("the title index did not become exact")
	}
	_ = cat.Close()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the index was not written as a private file: %v %v", fi, err)
	}
	spec, gate := gatedSpec(e.client(home))
	next := e.catalog([]HostSpec{spec}, Options{IndexDir: dir})
	first, _ := searchProgress(t, next, gate, "needle")
	if idList(first) != a+","+b {
		t.Fatalf("the next run answered %+v from its file, want %s,%s", first, a, b)
	}
}
