package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// These tests run the real App Server against the loopback fake model: a default Codex home
// whose App Server the test also drives (as the native harness does for gateway:local), and
// extra homes with App Servers the catalog starts itself.

type realEnv struct {
	t    *testing.T
	bin  string
	fake *fakemodel.Server
}

func newRealEnv(t *testing.T) *realEnv {
	t.Helper()
	bin := codextest.CodexBin(t)
	return &realEnv{t: t, bin: bin, fake: fakemodel.Start(t)}
}

func (e *realEnv) home() string { return codextest.NewHome(e.t, e.fake.URL()) }

func (e *realEnv) startFn(home string) func(ctx context.Context) (*appserver.Client, error) {
	log := filepath.Join(e.t.TempDir(), "app-server.log")
	return func(ctx context.Context) (*appserver.Client, error) {
		return appserver.Start(ctx, appserver.Config{Bin: e.bin, Env: codextest.Env(home), Dir: e.t.TempDir(), StderrLog: log})
	}
}

// client starts an App Server on home that the test drives (and that is stopped at the end).
func (e *realEnv) client(home string) *appserver.Client {
	e.t.Helper()
	c, err := e.startFn(home)(context.Background())
	if err != nil {
		e.t.Fatalf("start app-server: %v", err)
	}
	e.t.Cleanup(func() { _ = c.Close() })
	return c
}

// thread creates a stored thread: started in c, given a name (when set) and turns with the
// texts given, so that it is listed.
func (e *realEnv) thread(c *appserver.Client, name string, texts ...string) string {
	e.t.Helper()
	ctx := context.Background()
	res, err := c.ThreadStart(ctx, appserver.ThreadStartParams{Cwd: e.t.TempDir()})
	if err != nil {
		e.t.Fatalf("thread/start: %v", err)
	}
	id := res.Thread.ID
	for _, text := range texts {
		e.turn(c, id, text)
	}
	if name != "" {
		if err := c.Call(ctx, "thread/name/set", map[string]any{"threadId": id, "name": name}, nil); err != nil {
			e.t.Fatalf("thread/name/set: %v", err)
		}
	}
	return id
}

func (e *realEnv) turn(c *appserver.Client, id, text string) {
	e.t.Helper()
	done, stop := c.Subscribe(func(m string) bool { return m == "turn/completed" })
	defer stop()
	turn, err := c.TurnStart(context.Background(), appserver.TurnStartParams{ThreadID: id, Input: appserver.TextInput(text)})
	if err != nil {
		e.t.Fatalf("turn/start: %v", err)
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case n := <-done:
			var ev appserver.TurnEvent
			if json.Unmarshal(n.Params, &ev) == nil && ev.ThreadID == id && ev.Turn.ID == turn.ID {
				return
			}
		case <-timeout:
			e.t.Fatalf("turn of %s did not complete", id)
		}
	}
}

func (e *realEnv) catalog(specs []HostSpec, opts Options) *Catalog {
	e.t.Helper()
	cat, err := New(specs, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = cat.Close() })
	return cat
}

func localSpec(c *appserver.Client) HostSpec {
	return HostSpec{ID: LocalHostID, Default: true, Source: SourceFunc(func(context.Context) (Conn, error) { return c, nil })}
}

func ids(ss []api.CatalogSession) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

func hostPage(t *testing.T, res api.CatalogSessionsResult, id string) api.CatalogHostSessions {
	t.Helper()
	for _, h := range res.Hosts {
		if h.Host == id {
			return h
		}
	}
	t.Fatalf("host %s missing from %+v", id, res)
	return api.CatalogHostSessions{}
}

// Scenario: S003-01 — the catalog lists the unarchived sessions of the default and an extra
// Codex home, grouped by host, default first, as the projection only: no preview text,
// rollout path or home path.
func TestS003_01_ListsSessionsOfSeveralHomesWithoutLeaks(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	defHome, extraHome := e.home(), e.home()
	def := e.client(defHome)
	a := e.thread(def, "Default Alpha", "PREVIEW-MARKER-A first question")
	b := e.thread(def, "", "PREVIEW-MARKER-B unnamed")
	author := e.client(extraHome)
	x := e.thread(author, "Extra Xray", "PREVIEW-MARKER-X hello")
	_ = author.Close()

	xid := ExtraHostID(extraHome)
	cat := e.catalog([]HostSpec{localSpec(def), {ID: xid, Source: NewProcessSource(e.startFn(extraHome))}}, Options{})
	res, err := cat.List(context.Background(), api.CatalogSessionsParams{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hosts) != 2 || res.Hosts[0].Host != LocalHostID || res.Hosts[1].Host != xid {
		t.Fatalf("hosts %+v", res.Hosts)
	}
	loc, ext := res.Hosts[0], res.Hosts[1]
	if loc.Error != nil || ext.Error != nil {
		t.Fatalf("errors: %+v %+v", loc.Error, ext.Error)
	}
	if strings.Join(ids(loc.Sessions), ",") != b+","+a || strings.Join(ids(ext.Sessions), ",") != x {
		t.Fatalf("rows: local %v extra %v", ids(loc.Sessions), ids(ext.Sessions))
	}
	s := loc.Sessions[1]
	if s.Title != "Default Alpha" || s.Status != model.ThreadIdle || s.Source != "vscode" || s.ModelProvider != "fake" || s.CodexVersion == "" || s.Cwd == "" || s.CreatedAt.IsZero() {
		t.Fatalf("projection %+v", s)
	}
	if ext.Sessions[0].Status != model.ThreadNotLoaded || ext.Sessions[0].Title != "Extra Xray" {
		t.Fatalf("extra row %+v", ext.Sessions[0])
	}
	if loc.Sessions[0].Title != "" {
		t.Fatalf("an unnamed thread got a title (from its preview?): %q", loc.Sessions[0].Title)
	}
	raw, _ := json.Marshal(res)
	for _, leak := range []string{"PREVIEW-MARKER", "rollout-", ".jsonl", defHome, extraHome, "sessions/"} {
		if strings.Contains(string(raw), leak) {
			t.Fatalf("sessions JSON holds %q:\n%s", leak, raw)
		}
	}
}

// Scenario: S003-03 — a host whose Codex home is gone, or whose codex binary cannot start,
// reports its error code and no rows; the healthy host still lists.
func TestS003_03_DeadHomeFailsAloneWithoutRows(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	def := e.client(e.home())
	a := e.thread(def, "Alive", "hello")
	gone := e.home()
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	badBin := func(ctx context.Context) (*appserver.Client, error) {
		return appserver.Start(ctx, appserver.Config{Bin: "/nonexistent/secret-bin/codex", Env: codextest.Env(gone)})
	}
	goneID, badID := ExtraHostID(gone), ExtraHostID(gone+"-bin")
	cat := e.catalog([]HostSpec{localSpec(def), {ID: goneID, Source: NewProcessSource(e.startFn(gone))}, {ID: badID, Source: NewProcessSource(badBin)}}, Options{})
	res, err := cat.List(context.Background(), api.CatalogSessionsParams{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if loc := hostPage(t, res, LocalHostID); loc.Error != nil || strings.Join(ids(loc.Sessions), ",") != a {
		t.Fatalf("healthy host: %+v", loc)
	}
	for _, id := range []string{goneID, badID} {
		h := hostPage(t, res, id)
		if h.Error == nil || h.Error.Code != model.CodeAppServerUnavailable || len(h.Sessions) != 0 || h.NextCursor != "" {
			t.Fatalf("dead host %s: %+v", id, h)
		}
		msg := h.Error.Message + h.Error.Hint
		if strings.Contains(msg, gone) || strings.Contains(msg, "secret-bin") || strings.Contains(msg, ".log") {
			t.Fatalf("dead host error shows a path: %q", msg)
		}
	}
	for _, hi := range cat.Hosts(context.Background()).Hosts {
		want := api.CatalogHealthError
		if hi.ID == LocalHostID {
			want = api.CatalogHealthOK
		}
		if hi.Health.State != want {
			t.Fatalf("health of %s: %+v", hi.ID, hi.Health)
		}
	}
}

// Scenario: S003-L — cursors page one host at a time, newest first, without repeats; a
// cursor of one host is refused for another.
func TestS003_L_CursorPagingPerHost(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	def := e.client(e.home())
	var want []string
	for i := range 7 {
		want = append([]string{e.thread(def, fmt.Sprintf("page %d", i), fmt.Sprintf("q%d", i))}, want...)
	}
	extraHome := e.home()
	xid := ExtraHostID(extraHome)
	cat := e.catalog([]HostSpec{localSpec(def), {ID: xid, Source: NewProcessSource(e.startFn(extraHome))}}, Options{})
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		res, err := cat.List(context.Background(), api.CatalogSessionsParams{Host: LocalHostID, Limit: 3, Cursor: cursor}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h := res.Hosts[0]
		if len(res.Hosts) != 1 || len(h.Sessions) > 3 {
			t.Fatalf("page %d: %+v", page, res)
		}
		got = append(got, ids(h.Sessions)...)
		if cursor = h.NextCursor; cursor == "" {
			break
		}
		_, err = cat.List(context.Background(), api.CatalogSessionsParams{Host: xid, Cursor: cursor}, nil)
		wantCode(t, err, model.CodeInvalidArgument)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged %v\nwant  %v", got, want)
	}
}

// Scenario: S003-L — title search is case-insensitive and never matches preview text.
func TestS003_L_SearchMatchesTitlesCaseInsensitively(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	def := e.client(e.home())
	a := e.thread(def, "Release NEEDLE plan", "one")
	b := e.thread(def, "needle in lower case", "two")
	e.thread(def, "", "a needle only in the preview")
	e.thread(def, "unrelated", "three")
	cat := e.catalog([]HostSpec{localSpec(def)}, Options{})
	res, err := cat.List(context.Background(), api.CatalogSessionsParams{Search: "NeEdLe"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(res.Hosts[0].Sessions), ","); got != b+","+a {
		t.Fatalf("search found %v, want %v", got, b+","+a)
	}
}

// Scenario: S003-L — transcripts page at most 20 turns, newest page first, each page oldest
// first, with cursors both ways that lead to exactly the neighbouring pages.
func TestS003_L_TranscriptPagesBothWays(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	def := e.client(e.home())
	var texts []string
	for i := range 45 {
		texts = append(texts, fmt.Sprintf("question %02d", i))
	}
	id := e.thread(def, "long", texts...)
	cat := e.catalog([]HostSpec{localSpec(def)}, Options{})
	read := func(cursor string) api.CatalogTranscriptResult {
		t.Helper()
		res, err := cat.Transcript(context.Background(), api.CatalogTranscriptParams{Thread: "codex://threads/" + id, Cursor: cursor})
		if err != nil {
			t.Fatalf("transcript: %v", err)
		}
		return res
	}
	check := func(res api.CatalogTranscriptResult, from, to int) {
		t.Helper()
		if len(res.Turns) != to-from || len(res.Turns) > DefaultTurnsPerPage {
			t.Fatalf("want turns %d..%d, got %d turns", from, to-1, len(res.Turns))
		}
		for i, turn := range res.Turns {
			if len(turn.Messages) != 2 || turn.Messages[0].Role != model.RoleUser || turn.Messages[1].Role != model.RoleAssistant {
				t.Fatalf("turn %d messages %+v", i, turn.Messages)
			}
			if want := fmt.Sprintf("question %02d", from+i); turn.Messages[0].Text != want {
				t.Fatalf("turn %d is %q, want %q", i, turn.Messages[0].Text, want)
			}
		}
	}
	newest := read("")
	check(newest, 25, 45)
	if newest.NewerCursor != "" || newest.OlderCursor == "" {
		t.Fatalf("newest page cursors: older %q newer %q", newest.OlderCursor, newest.NewerCursor)
	}
	middle := read(newest.OlderCursor)
	check(middle, 5, 25)
	oldest := read(middle.OlderCursor)
	check(oldest, 0, 5)
	if oldest.OlderCursor != "" || oldest.NewerCursor == "" {
		t.Fatalf("oldest page cursors: older %q newer %q", oldest.OlderCursor, oldest.NewerCursor)
	}
	up := read(oldest.NewerCursor)
	check(up, 5, 25)
	top := read(up.NewerCursor)
	check(top, 25, 45)
	back := read(top.OlderCursor)
	check(back, 5, 25)
	if top.NewerCursor != "" {
		if beyond := read(top.NewerCursor); len(beyond.Turns) != 0 {
			t.Fatalf("past the newest turn: %d turns", len(beyond.Turns))
		}
	}
	// A cursor of this thread is refused for another thread.
	other := e.thread(def, "", "x")
	_, err := cat.Transcript(context.Background(), api.CatalogTranscriptParams{Thread: other, Cursor: newest.OlderCursor})
	wantCode(t, err, model.CodeInvalidArgument)
	_, err = cat.Transcript(context.Background(), api.CatalogTranscriptParams{Thread: "01a00000-0000-7000-8000-000000000000"})
	wantCode(t, err, model.CodeThreadNotFound)
}

// Scenario: S003-17 — a confirmed archive of an idle thread succeeds once Codex accepted it
// and the row leaves the catalog, warm or cold. Scenario: S003-02 — archived sessions never
// appear in catalog responses.
func TestS003_17_ArchiveIdleThreadRemovesTheRow(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	def := e.client(e.home())
	keep := e.thread(def, "keep", "one")
	gone := e.thread(def, "archive me", "two")
	cat := e.catalog([]HostSpec{localSpec(def)}, Options{IndexTTL: time.Hour})
	list := func(c *Catalog) []string {
		res, err := c.List(context.Background(), api.CatalogSessionsParams{}, nil)
		if err != nil || res.Hosts[0].Error != nil {
			t.Fatalf("list: %v %+v", err, res)
		}
		return ids(res.Hosts[0].Sessions)
	}
	if got := strings.Join(list(cat), ","); got != gone+","+keep {
		t.Fatalf("before: %v", got)
	}
	res, err := cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: gone, ConfirmNoOtherRunner: true}, nil)
	if err != nil || !res.Archived || res.Thread != gone || res.Host != LocalHostID {
		t.Fatalf("archive: %+v %v", res, err)
	}
	if got := strings.Join(list(cat), ","); got != keep {
		t.Fatalf("warm list after archive: %v", got)
	}
	if got := strings.Join(list(e.catalog([]HostSpec{localSpec(def)}, Options{})), ","); got != keep {
		t.Fatalf("cold list after archive: %v", got)
	}
	var archived appserver.ThreadListResult
	yes := true
	if err := def.Call(context.Background(), "thread/list", appserver.ThreadListParams{Archived: &yes}, &archived); err != nil || len(archived.Data) != 1 || archived.Data[0].ID != gone {
		t.Fatalf("Codex's archive: %+v %v", archived.Data, err)
	}
	_, err = cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: gone, ConfirmNoOtherRunner: true}, nil)
	wantCode(t, err, model.CodeFailedPrecondition)
}

// Scenario: S003-13 — an active local thread cannot be archived. Scenario: S003-16 — a thread
// another Codex process holds open is refused too; both stay in the catalog.
func TestS003_13_ArchiveRefusesActiveAndForeignOwnedThreads(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	defHome := e.home()
	def := e.client(defHome)
	busy := e.thread(def, "busy", "one")
	// Another App Server on the same home (a Codex Desktop, say) made this thread and keeps it
	// loaded: it holds the thread's writer lock, and here the thread reads notLoaded.
	other := e.client(defHome)
	held := e.thread(other, "held elsewhere", "two")
	cat := e.catalog([]HostSpec{localSpec(def)}, Options{})

	active, stop := def.Subscribe(func(m string) bool { return m == "thread/status/changed" })
	defer stop()
	turn, err := def.TurnStart(context.Background(), appserver.TurnStartParams{ThreadID: busy, Input: appserver.TextInput("[[mode:hang]] keep running")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = def.TurnInterrupt(context.Background(), busy, turn.ID) }()
	for ev := (appserver.ThreadStatusChanged{}); ev.ThreadID != busy || ev.Status.Type != appserver.StatusActive; {
		select {
		case n := <-active:
			_ = json.Unmarshal(n.Params, &ev)
		case <-time.After(30 * time.Second):
			t.Fatal("the turn did not make the thread active")
		}
	}
	_, err = cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: busy, ConfirmNoOtherRunner: true}, nil)
	wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(err.Error(), "active") {
		t.Fatalf("refusal does not say why: %v", err)
	}

	_, err = cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: held, ConfirmNoOtherRunner: true}, nil)
	wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(err.Error(), "another Codex process") {
		t.Fatalf("refusal does not name the other process: %v", err)
	}
	res, err := cat.List(context.Background(), api.CatalogSessionsParams{}, nil)
	if err != nil || len(res.Hosts[0].Sessions) != 2 {
		t.Fatalf("refused threads must stay listed: %+v %v", res, err)
	}
}

// Scenario: S003-21 — listing and reading transcripts are passive: the catalog's own App
// Server loads (so resumes or subscribes to) no thread.
func TestS003_21_CatalogLoadsNoThread(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	home := e.home()
	author := e.client(home)
	id := e.thread(author, "stored", "one", "two")
	_ = author.Close()
	src := NewProcessSource(e.startFn(home))
	xid := ExtraHostID(home)
	cat := e.catalog([]HostSpec{{ID: xid, Source: src}}, Options{})
	res, err := cat.List(context.Background(), api.CatalogSessionsParams{Host: xid}, nil)
	if err != nil || len(res.Hosts[0].Sessions) != 1 {
		t.Fatalf("list: %+v %v", res, err)
	}
	tr, err := cat.Transcript(context.Background(), api.CatalogTranscriptParams{Host: xid, Thread: id})
	if err != nil || len(tr.Turns) != 2 {
		t.Fatalf("transcript: %+v %v", tr, err)
	}
	conn, err := src.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var loaded appserver.LoadedListResult
	if err := conn.Call(context.Background(), "thread/loaded/list", map[string]any{}, &loaded); err != nil || len(loaded.Data) != 0 {
		t.Fatalf("the catalog loaded threads: %v %v", loaded.Data, err)
	}
}
