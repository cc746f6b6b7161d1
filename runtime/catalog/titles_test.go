package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

func TestTitlesFileRoundTripIsPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "catalog-index")
	path := titlesPath(dir, LocalHostID)
	in := []titleEntry{{id: "a", title: "Tab\there\nand line", createdAt: 10, updatedAt: 12}, {id: "b", createdAt: 11, updatedAt: 11}}
	if err := writeTitlesFile(path, titlesHeader{Codex: "0.169.0", Home: "k", Watermark: 12}, in); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want %v", p, fi, err, want)
		}
	}
	h, out, err := readTitlesFile(path)
	if err != nil || h.Codex != "0.169.0" || h.Watermark != 12 || len(out) != 2 {
		t.Fatalf("%+v %+v %v", h, out, err)
	}
	if out[0].title != "Tab here and line" || out[0].titleFold != "tab here and line" || out[1].title != "" || out[1].updatedAt != 11 {
		t.Fatalf("entries %+v", out)
	}
}

func TestTitlesFileRejectsDamage(t *testing.T) {
	t.Parallel()
	good := "codexhost-titles 1\n{\"codex\":\"1\",\"home\":\"k\",\"watermark\":3}\nid\t1\t2\ttitle\n"
	if _, e, err := decodeTitles([]byte(good)); err != nil || len(e) != 1 {
		t.Fatalf("good file: %v %v", e, err)
	}
	for name, bad := range map[string]string{
		"other format": "codexhost-titles 2\n{}\n",
		"no header":    "codexhost-titles 1\n",
		"cut line":     good[:len(good)-1],
		"bad time":     "codexhost-titles 1\n{}\nid\tx\t2\tt\n",
		"no id":        "codexhost-titles 1\n{}\n\t1\t2\tt\n",
		"few fields":   "codexhost-titles 1\n{}\nid\t1\n",
		"negative":     "codexhost-titles 1\n{\"watermark\":-1}\n",
	} {
		if _, _, err := decodeTitles([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzDecodeTitles(f *testing.F) {
	f.Add([]byte("codexhost-titles 1\n{\"codex\":\"1\",\"home\":\"k\",\"watermark\":3}\nid\t1\t2\ttitle\n"))
	f.Add([]byte("codexhost-titles 1\n{}\nid\t1\t2\t\n"))
	f.Add([]byte("codexhost-titles 1\n{}\nid\t-1\t2\tt\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, entries, err := decodeTitles(data)
		if err != nil {
			return
		}
		// What is accepted writes back to what reads the same.
		var buf bytes.Buffer
		if err := encodeTitles(&buf, h, entries); err != nil {
			t.Fatal(err)
		}
		h2, again, err := decodeTitles(buf.Bytes())
		if err != nil || h2 != h || len(again) != len(entries) {
			t.Fatalf("round trip: %v %+v %+v", err, h2, again)
		}
		for i := range again {
			if again[i].id != entries[i].id || again[i].title != entries[i].title {
				t.Fatalf("round trip row %d: %+v %+v", i, again[i], entries[i])
			}
		}
	})
}

// An index read with another Codex version, or from another Codex home, starts over.
func TestTitlesIdentityChangeStartsOver(t *testing.T) {
	t.Parallel()
	for name, hd := range map[string]titlesHeader{
		"codex version": {Codex: "0.0.1", Home: homeKey("/h"), Watermark: 5},
		"codex home":    {Codex: "0.169.0", Home: homeKey("/other"), Watermark: 5},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := writeTitlesFile(titlesPath(dir, LocalHostID), hd, []titleEntry{{id: "t1", title: "x", createdAt: 1, updatedAt: 2}}); err != nil {
				t.Fatal(err)
			}
			cat, err := New([]HostSpec{{ID: LocalHostID, Source: &fakeSource{}}}, Options{IndexDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			h := cat.byID[LocalHostID]
			cat.loadTitles(h)
			if h.titles.current() != titlesLoaded || len(h.titles.entries) != 1 {
				t.Fatalf("not loaded: %v", h.titles.current())
			}
			cat.checkIdentity(h, &identityConn{ua: "codex_vscode/0.169.0 (Linux)", home: "/h"})
			if h.titles.current() != titlesEmpty || len(h.titles.entries) != 0 {
				t.Fatalf("a foreign index was kept: %v %d", h.titles.current(), len(h.titles.entries))
			}
		})
	}
}

type identityConn struct {
	fakeConn
	ua, home string
}

func (c *identityConn) Info() appserver.InitializeResult {
	return appserver.InitializeResult{UserAgent: c.ua, CodexHome: c.home}
}

// Time rules of the title index, with an injected clock: the newest rows are read again
// after IndexTTL, an index not confirmed by a full read within PageTTL answers revalidating,
// and keep-warm renews it two refresh periods before that.
func TestTitlesTimeRules(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cat, err := New([]HostSpec{{ID: LocalHostID, Source: &fakeSource{}}}, Options{IndexDir: t.TempDir(), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	h := cat.byID[LocalHostID]
	tt := h.titles
	tt.mu.Lock()
	tt.state, tt.exactAt, tt.headAt = titlesExact, clk.now(), clk.now()
	tt.mu.Unlock()
	stale := func() bool {
		tt.mu.Lock()
		defer tt.mu.Unlock()
		return cat.titlesStale(tt, clk.now())
	}
	if cat.headDue(h) || stale() || cat.titlesDue(h, clk.now()) {
		t.Fatal("a fresh index is due")
	}
	clk.add(DefaultIndexTTL - time.Nanosecond)
	if cat.headDue(h) {
		t.Fatal("head due before IndexTTL")
	}
	clk.add(time.Nanosecond)
	if !cat.headDue(h) {
		t.Fatal("head not due at IndexTTL")
	}
	renewAt := DefaultPageTTL - 2*cat.refreshEvery()
	clk.add(renewAt - DefaultIndexTTL - time.Nanosecond)
	if cat.titlesDue(h, clk.now()) {
		t.Fatal("keep-warm renews too early")
	}
	clk.add(time.Nanosecond)
	if !cat.titlesDue(h, clk.now()) || stale() {
		t.Fatal("keep-warm must renew before the index is stale")
	}
	clk.add(DefaultPageTTL - renewAt)
	if !stale() {
		t.Fatal("not revalidating at PageTTL")
	}
	h.titlesHeadStale()
	tt.mu.Lock()
	tt.headAt = clk.now()
	tt.mu.Unlock()
	if !cat.headDue(h) {
		t.Fatal("an unarchive seen does not ask for the newest rows")
	}
}

// Changes this runtime sees (its own archive, a rename notification) apply to the index at
// once; a read started before them does not undo them.
func TestTitlesOverlayAppliesAndWins(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cat, err := New([]HostSpec{{ID: LocalHostID, Source: &fakeSource{}}}, Options{IndexDir: t.TempDir(), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	h := cat.byID[LocalHostID]
	read := clk.now()
	mk := func(id, title string) row {
		return row{s: api.CatalogSession{ID: id, Title: title, CreatedAt: time.Unix(100, 0), UpdatedAt: time.Unix(100, 0)}, titleFold: fold(title)}
	}
	h.titles.upsert(mk("a", "needle a"), read)
	h.titles.upsert(mk("b", "needle b"), read)
	clk.add(time.Second)
	h.setOverlay(clk.now(), "a", func(o *overlay) { o.archived = true })
	title := "plain"
	h.setOverlay(clk.now(), "b", func(o *overlay) { o.title = &title })
	h.titles.upsert(mk("b", "needle b"), read) // a read from before the rename
	if m := h.titles.matches("needle", nil); len(m) != 0 {
		t.Fatalf("matches after archive and rename: %+v", m)
	}
	if m := h.titles.matches("plain", nil); len(m) != 1 || m[0].id != "b" {
		t.Fatalf("renamed: %+v", m)
	}
}
