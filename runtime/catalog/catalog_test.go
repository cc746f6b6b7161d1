package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// These tests drive the catalog against fake App Server connections; catalog_real_test.go
// runs the same paths against the real App Server.

type fixture struct {
	cat   *Catalog
	clock *clock
	local *fakeSource
	extra *fakeSource
}

const extraID = LocalHostID + ":abc"

func newFixture(t *testing.T, n int, opts Options) *fixture {
	t.Helper()
	mk := func(prefix string, base int) *fakeConn {
		f := &fakeConn{}
		for i := range n {
			f.threads = append(f.threads, fakeThread(base+i, fmt.Sprintf("%s thread %d", prefix, i)))
		}
		return f
	}
	fx := &fixture{clock: newClock(), local: &fakeSource{conn: mk("Local", 0)}, extra: &fakeSource{conn: mk("Extra", 100000)}}
	opts.Now = fx.clock.now
	if opts.ReadAheadPages == 0 {
		opts.ReadAheadPages = -1 // most tests count native calls
	}
	cat, err := New([]HostSpec{{ID: LocalHostID, Default: true, Source: fx.local}, {ID: extraID, Source: fx.extra}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	fx.cat = cat
	return fx
}

func (fx *fixture) list(t *testing.T, p api.CatalogSessionsParams) api.CatalogSessionsResult {
	t.Helper()
	res, err := fx.cat.List(context.Background(), p, nil)
	if err != nil {
		t.Fatalf("list %+v: %v", p, err)
	}
	return res
}

func wantCode(t *testing.T, err error, code model.Code) {
	t.Helper()
	if !model.IsCode(err, code) {
		t.Fatalf("want %s, got %v", code, err)
	}
}

// Scenario: S003-L — limit 50 per host by default, 1 to 100 accepted, anything else refused.
func TestS003_L_LimitPerHostDefaultsTo50AndIsBounded(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, 120, Options{})
	res := fx.list(t, api.CatalogSessionsParams{})
	if len(res.Hosts) != 2 || res.Hosts[0].Host != LocalHostID || res.Hosts[1].Host != extraID {
		t.Fatalf("hosts %+v", res.Hosts)
	}
	for _, h := range res.Hosts {
		if len(h.Sessions) != DefaultLimit || h.NextCursor == "" {
			t.Fatalf("host %s: %d sessions, cursor %q", h.Host, len(h.Sessions), h.NextCursor)
		}
	}
	if got := fx.list(t, api.CatalogSessionsParams{Limit: 100}); len(got.Hosts[0].Sessions) != 100 {
		t.Fatalf("limit 100: %d", len(got.Hosts[0].Sessions))
	}
	if got := fx.list(t, api.CatalogSessionsParams{Limit: 1}); len(got.Hosts[1].Sessions) != 1 {
		t.Fatalf("limit 1: %d", len(got.Hosts[1].Sessions))
	}
	before := fx.local.conn.count("thread/list")
	for _, bad := range []int{-1, 101, 1000} {
		_, err := fx.cat.List(context.Background(), api.CatalogSessionsParams{Limit: bad}, nil)
		wantCode(t, err, model.CodeInvalidArgument)
	}
	if fx.local.conn.count("thread/list") != before {
		t.Fatal("a refused request reached the App Server")
	}
}

// Scenario: S003-L — a cursor needs --host; cursors are bound to their host and search, and
// forged, edited or oversized ones are refused before anything reaches an App Server.
func TestS003_L_CursorNeedsHostAndIsBoundToIt(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, 30, Options{})
	first := fx.list(t, api.CatalogSessionsParams{Host: LocalHostID, Limit: 10})
	cur := first.Hosts[0].NextCursor
	if cur == "" {
		t.Fatal("no cursor")
	}
	_, err := fx.cat.List(context.Background(), api.CatalogSessionsParams{Cursor: cur}, nil)
	wantCode(t, err, model.CodeInvalidArgument)
	if !has(err.Error(), "--host") {
		t.Fatalf("error does not name --host: %v", err)
	}
	calls := fx.extra.conn.count("thread/list") + fx.local.conn.count("thread/list")
	tampered := []byte(cur)
	tampered[len(cur)/2] ^= 1
	bad := map[string]string{
		"other host":   cur,
		"forged":       "cc1." + strings.Repeat("A", 40) + ".AAAA",
		"edited":       string(tampered),
		"oversized":    cur + strings.Repeat("x", MaxCursorBytes),
		"not a cursor": "2026-11-30T04:09:14Z|01a22aa4-82c4-7a72-91a4-3f11e3043931",
	}
	for name, c := range bad {
		host := LocalHostID
		if name == "other host" {
			host = extraID
		}
		_, err := fx.cat.List(context.Background(), api.CatalogSessionsParams{Host: host, Cursor: c}, nil)
		wantCode(t, err, model.CodeInvalidArgument)
		if name == "other host" && !has(err.Error(), "belongs to host "+LocalHostID) {
			t.Fatalf("other-host cursor: %v", err)
		}
	}
	_, err = fx.cat.List(context.Background(), api.CatalogSessionsParams{Host: LocalHostID, Cursor: cur, Search: "thread"}, nil)
	wantCode(t, err, model.CodeInvalidArgument)
	_, err = fx.cat.List(context.Background(), api.CatalogSessionsParams{Host: "gateway:nope"}, nil)
	wantCode(t, err, model.CodeInvalidArgument)
	if got := fx.extra.conn.count("thread/list") + fx.local.conn.count("thread/list"); got != calls {
		t.Fatalf("refused cursors reached the App Server (%d calls, want %d)", got, calls)
	}
	// The real cursor continues where the first page ended, on its own host only.
	next := fx.list(t, api.CatalogSessionsParams{Host: LocalHostID, Limit: 10, Cursor: cur})
	if len(next.Hosts) != 1 || next.Hosts[0].Sessions[0].ID != fx.local.conn.threads[10]["id"] {
		t.Fatalf("continued page %+v", next.Hosts)
	}
}

// Scenario: S003-L — search matches titles only, case-insensitively, reads at most
// SearchPages native pages per call without sending the text to the App Server, and the
// cursor continues the scan until every match was found.
func TestS003_L_SearchIsTitleOnlyBoundedAndContinues(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, 0, Options{SearchPages: 2})
	conn := fx.local.conn
	want := map[string]bool{}
	for i := range 1000 {
		name := fmt.Sprintf("plain %d", i)
		if i%97 == 0 {
			name = fmt.Sprintf("Release NEEDLE %d", i)
			want[fmt.Sprintf("01a22b08-0000-7000-8000-%012d", i)] = true
		}
		th := fakeThread(i, name)
		if i == 5 {
			th["preview"] = "needle only in the preview" // previews never match
		}
		conn.threads = append(conn.threads, th)
	}
	got := map[string]bool{}
	cursor, calls := "", 0
	for {
		calls++
		before := conn.count("thread/list")
		res := fx.list(t, api.CatalogSessionsParams{Host: LocalHostID, Search: "needle", Limit: 5, Cursor: cursor})
		if read := conn.count("thread/list") - before; read > 2 {
			t.Fatalf("one search call read %d native pages, budget 2", read)
		}
		for _, s := range res.Hosts[0].Sessions {
			if !has(strings.ToLower(s.Title), "needle") || got[s.ID] {
				t.Fatalf("unexpected or repeated row %+v", s)
			}
			got[s.ID] = true
		}
		if cursor = res.Hosts[0].NextCursor; cursor == "" {
			break
		}
		if calls > 100 {
			t.Fatal("the scan does not end")
		}
	}
	if len(got) != len(want) {
		t.Fatalf("found %d of %d matches", len(got), len(want))
	}
	if calls < 3 {
		t.Fatalf("1000 threads with a 2-page budget were scanned in %d calls", calls)
	}
	for _, p := range conn.callsOf("thread/list") {
		if _, ok := p["searchTerm"]; ok {
			t.Fatalf("the search text reached the App Server: %v", p)
		}
		if p["useStateDbOnly"] != true || p["archived"] != false {
			t.Fatalf("list params %v", p)
		}
	}
}

// Scenario: S003-01 — rows are the projection only: no preview, rollout path, home path, git
// remote or SHA, and only interactive sources.
func TestS003_01_ProjectionLeaksNothingAndKeepsInteractiveSources(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, 0, Options{})
	conn := fx.local.conn
	for i, src := range []any{"cli", "vscode", "exec", "appServer", map[string]any{"custom": "Atlas"}, map[string]any{"custom": "chatgpt"}, map[string]any{"subAgent": "review"}, map[string]any{"custom": "other"}} {
		th := fakeThread(i, fmt.Sprintf("t%d", i))
		th["source"] = src
		conn.threads = append(conn.threads, th)
	}
	eph := fakeThread(99, "ephemeral")
	eph["ephemeral"] = true
	conn.threads = append(conn.threads, eph)
	res := fx.list(t, api.CatalogSessionsParams{Host: LocalHostID})
	var sources []string
	for _, s := range res.Hosts[0].Sessions {
		sources = append(sources, s.Source)
		if s.GitBranch != "main" || s.ModelProvider != "fake" || s.CodexVersion != "0.169.0" || s.Cwd != "/work/project" || s.Status != model.ThreadNotLoaded {
			t.Fatalf("projection %+v", s)
		}
	}
	if strings.Join(sources, ",") != "cli,vscode,atlas,chatgpt" {
		t.Fatalf("sources %v", sources)
	}
	b, _ := json.Marshal(res)
	for _, leak := range []string{"SECRET", "/secret", "rollout", "deadbeef", "secret.example", "preview", "path"} {
		if has(string(b), leak) {
			t.Fatalf("sessions JSON holds %q: %s", leak, b)
		}
	}
}

// Scenario: S003-03 — a failing host reports a clean error code and no rows while the other
// host lists; it is not asked again until its backoff has passed.
func TestS003_03_FailingHostBacksOffAndOthersList(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, 10, Options{})
	fx.extra.setErr(startErr("/secret/bin/codex"))
	res := fx.list(t, api.CatalogSessionsParams{})
	loc, ext := res.Hosts[0], res.Hosts[1]
	if loc.Error != nil || len(loc.Sessions) != 10 {
		t.Fatalf("healthy host: %+v", loc)
	}
	if ext.Error == nil || ext.Error.Code != model.CodeAppServerUnavailable || len(ext.Sessions) != 0 || ext.NextCursor != "" {
		t.Fatalf("failed host: %+v", ext)
	}
	if has(ext.Error.Message+ext.Error.Hint, "/secret") {
		t.Fatalf("the error shows a path: %+v", ext.Error)
	}
	attempts := fx.extra.attempts()
	fx.clock.add(time.Second)
	res = fx.list(t, api.CatalogSessionsParams{})
	if fx.extra.attempts() != attempts {
		t.Fatal("a backing-off host was asked again")
	}
	if e := res.Hosts[1].Error; e == nil || e.Code != model.CodeAppServerUnavailable || !has(e.Message, "next attempt") {
		t.Fatalf("backing off: %+v", res.Hosts[1])
	}
	hosts := fx.cat.Hosts(context.Background()).Hosts
	if hosts[1].Health.State != api.CatalogHealthError || hosts[1].Health.Code != string(model.CodeAppServerUnavailable) || hosts[0].Health.State != api.CatalogHealthOK {
		t.Fatalf("health %+v", hosts)
	}
	// A second failure doubles the wait.
	fx.clock.add(backoffMin)
	fx.list(t, api.CatalogSessionsParams{})
	if fx.extra.attempts() != attempts+1 {
		t.Fatalf("not retried after the backoff: %d attempts", fx.extra.attempts())
	}
	fx.clock.add(backoffMin + time.Second)
	fx.list(t, api.CatalogSessionsParams{})
	if fx.extra.attempts() != attempts+1 {
		t.Fatal("the second backoff did not grow")
	}
	fx.extra.setErr(nil)
	fx.clock.add(2 * backoffMin)
	res = fx.list(t, api.CatalogSessionsParams{})
	if res.Hosts[1].Error != nil || len(res.Hosts[1].Sessions) != 10 || fx.cat.Hosts(context.Background()).Hosts[1].Health.State != api.CatalogHealthOK {
		t.Fatalf("recovered host: %+v", res.Hosts[1])
	}
}

// A host whose App Server answers but fails to list is a failed host too: no rows, not even
// those remembered from an earlier list, and no raw App Server text.
func TestFailedListDropsRememberedRows(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, 10, Options{IndexTTL: time.Minute})
	fx.list(t, api.CatalogSessionsParams{Host: extraID})
	fx.extra.conn.failList = &appserver.RPCError{Message: "database /secret/state_5.sqlite is locked", Code: -32600}
	fx.clock.add(2 * time.Minute)
	res := fx.list(t, api.CatalogSessionsParams{Host: extraID})
	if e := res.Hosts[0].Error; e == nil || len(res.Hosts[0].Sessions) != 0 || has(e.Message, "secret") {
		t.Fatalf("failed list: %+v", res.Hosts[0])
	}
}

// A warm list is served from the resident index; pages expire after the TTL; status
// notifications and archives show without reading the App Server again.
func TestWarmListUsesIndexAndObservesChanges(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, 60, Options{IndexTTL: 10 * time.Second})
	conn := fx.local.conn
	p := api.CatalogSessionsParams{Host: LocalHostID}
	cold := fx.list(t, p)
	if n := conn.count("thread/list"); n != 1 {
		t.Fatalf("cold list: %d native calls", n)
	}
	if got := conn.callsOf("thread/list")[0]["limit"]; got != float64(DefaultLimit) {
		t.Fatalf("cold list read %v rows, want the page only", got)
	}
	warm := fx.list(t, p)
	if n := conn.count("thread/list"); n != 1 {
		t.Fatalf("warm list read the App Server (%d calls)", n)
	}
	if fmt.Sprint(warm) != fmt.Sprint(cold) {
		t.Fatal("warm and cold lists differ")
	}
	id := cold.Hosts[0].Sessions[3].ID
	fx.cat.ObserveStatus(LocalHostID, id, model.ThreadActive)
	h := fx.cat.byID[LocalHostID]
	fx.cat.observe(h, note{method: "thread/archived", params: json.RawMessage(`{"threadId":"` + cold.Hosts[0].Sessions[4].ID + `"}`)})
	fx.cat.observe(h, note{method: "thread/name/updated", params: json.RawMessage(`{"threadId":"` + cold.Hosts[0].Sessions[5].ID + `","threadName":"Renamed"}`)})
	got := fx.list(t, p).Hosts[0].Sessions
	// The archived row leaves a gap of one, filled from the next native page; the first
	// page is not read again.
	if calls := conn.callsOf("thread/list"); len(calls) != 2 || calls[1]["cursor"] == nil {
		t.Fatalf("after observed changes: %v", calls)
	}
	if got[3].Status != model.ThreadActive || got[4].ID == cold.Hosts[0].Sessions[4].ID || got[4].Title != "Renamed" {
		t.Fatalf("observed changes not shown: %+v", got[3:6])
	}
	// A thread the index does not hold is probably new: the newest page is read again.
	fx.cat.ObserveStatus(LocalHostID, "01a22b08-ffff-7000-8000-000000000000", model.ThreadActive)
	fx.list(t, p)
	if calls := conn.callsOf("thread/list"); len(calls) != 3 || calls[2]["cursor"] != nil {
		t.Fatalf("a new thread did not refresh the newest page: %v", calls)
	}
	fx.clock.add(11 * time.Second)
	fx.list(t, p)
	if conn.count("thread/list") < 4 {
		t.Fatal("an expired page was served")
	}
}

// After a list, the rest of the host is read ahead in the background, at most ReadAheadPages
// pages; a search over a host read entirely is then served from memory in one call.
func TestReadAheadWarmsTheIndexForSearch(t *testing.T) {
	t.Parallel()
	for _, pages := range []int{3, 20} {
		fx := newFixture(t, 0, Options{ReadAheadPages: pages, IndexTTL: time.Hour})
		conn := fx.local.conn
		for i := range 1000 {
			name := fmt.Sprintf("plain %d", i)
			if i == 420 || i == 960 {
				name = "the Needle"
			}
			conn.threads = append(conn.threads, fakeThread(i, name))
		}
		fx.list(t, api.CatalogSessionsParams{Host: LocalHostID, Limit: 10})
		h := fx.cat.byID[LocalHostID]
		for deadline := time.Now().Add(10 * time.Second); h.ahead.Load(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("read-ahead did not finish")
			}
		}
		want := 1 + min(pages, 10) // the list's page, then 990 rows in pages of 100
		if n := conn.count("thread/list"); n != want {
			t.Fatalf("budget %d: %d native calls, want %d", pages, n, want)
		}
		if pages < 10 {
			_ = fx.cat.Close()
			continue
		}
		res := fx.list(t, api.CatalogSessionsParams{Host: LocalHostID, Search: "needle", Limit: 10})
		if len(res.Hosts[0].Sessions) != 2 || res.Hosts[0].NextCursor != "" || conn.count("thread/list") != want {
			t.Fatalf("search over the resident host: %+v, %d calls", res.Hosts[0], conn.count("thread/list"))
		}
		_ = fx.cat.Close()
	}
}

// Scenario: S003-16 — descendants are paged with ancestorThreadId over every source kind; an
// active or owned descendant, a listing error, a loop or an exhausted budget refuses.
func TestS003_16_ArchiveChecksDescendantsFailingClosed(t *testing.T) {
	t.Parallel()
	target := "01a22b08-0000-7000-8000-000000000001"
	child := func(i int, status string) map[string]any {
		return map[string]any{"id": fmt.Sprintf("01a22b08-0000-7000-8000-0000000001%02d", i), "status": map[string]any{"type": status}, "source": map[string]any{"subAgent": "review"}}
	}
	str := func(s string) *string { return &s }
	cases := []struct {
		name     string
		pages    func(cursor string) listResultJ
		running  string
		listErr  error
		wantOK   bool
		wantText string
	}{
		{name: "idle descendants", wantOK: true, pages: func(c string) listResultJ {
			if c == "" {
				return listResultJ{Data: []map[string]any{child(1, "idle")}, NextCursor: str("p2")}
			}
			return listResultJ{Data: []map[string]any{child(2, "notLoaded")}}
		}},
		{name: "active descendant on page 2", wantText: "is active", pages: func(c string) listResultJ {
			if c == "" {
				return listResultJ{Data: []map[string]any{child(1, "idle")}, NextCursor: str("p2")}
			}
			return listResultJ{Data: []map[string]any{child(2, "active")}}
		}},
		{name: "descendant running here", running: fmt.Sprintf("01a22b08-0000-7000-8000-0000000001%02d", 1), wantText: "running a turn in this runtime", pages: func(c string) listResultJ {
			return listResultJ{Data: []map[string]any{child(1, "notLoaded")}}
		}},
		{name: "listing error", listErr: &appserver.RPCError{Message: "boom", Code: -32600}, wantText: "could not be listed"},
		{name: "cursor loop", wantText: "looped", pages: func(c string) listResultJ {
			return listResultJ{Data: []map[string]any{child(len(c), "idle")}, NextCursor: str("again" + strings.Repeat("x", min(len(c), 1)))}
		}},
		{name: "thread loop", wantText: "repeated a thread", pages: func(c string) listResultJ {
			return listResultJ{Data: []map[string]any{child(1, "idle")}, NextCursor: str(c + "x")}
		}},
		{name: "budget", wantText: "more descendants", pages: func(c string) listResultJ {
			return listResultJ{Data: []map[string]any{child(len(c), "idle")}, NextCursor: str(c + "x")}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn := &fakeConn{children: tc.pages, read: map[string]any{"id": target, "status": map[string]any{"type": "notLoaded"}}}
			if tc.listErr != nil {
				conn.failList = tc.listErr
			}
			src := &fakeSource{conn: conn}
			running := func(id string) bool { return id == tc.running }
			cat, err := New([]HostSpec{{ID: LocalHostID, Source: src, Running: running}}, Options{DescendantPages: 5})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: target, ConfirmNoOtherRunner: true}, nil)
			if tc.wantOK {
				if err != nil || !res.Archived || len(conn.archived) != 1 {
					t.Fatalf("archive: %+v %v", res, err)
				}
				for _, p := range conn.callsOf("thread/list") {
					if p["ancestorThreadId"] != target || len(p["sourceKinds"].([]any)) != len(allSourceKinds) {
						t.Fatalf("descendant listing params %v", p)
					}
				}
				return
			}
			wantCode(t, err, model.CodeFailedPrecondition)
			if !has(err.Error(), tc.wantText) || len(conn.archived) != 0 {
				t.Fatalf("want %q and nothing archived; got %v, archived %v", tc.wantText, err, conn.archived)
			}
		})
	}
}

// Scenario: S003-14 — archive without the explicit confirmation is refused before anything
// is read; a fresh read refuses active and error threads and the owner check refuses a thread
// this runtime runs.
func TestS003_14_ArchiveNeedsConfirmationAndAFreshIdleRead(t *testing.T) {
	t.Parallel()
	target := "01a22b08-0000-7000-8000-000000000001"
	conn := &fakeConn{children: func(string) listResultJ { return listResultJ{} }}
	src := &fakeSource{conn: conn}
	running := false
	cat, _ := New([]HostSpec{{ID: LocalHostID, Source: src, Running: func(string) bool { return running }}}, Options{})
	_, err := cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: target}, nil)
	wantCode(t, err, model.CodeInvalidArgument)
	if !has(err.Error(), ConfirmFlag) || src.attempts() != 0 {
		t.Fatalf("no-flag archive: %v (%d connections)", err, src.attempts())
	}
	for _, st := range []string{"active", "systemError"} {
		conn.read = map[string]any{"id": target, "status": map[string]any{"type": st}}
		_, err = cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: target, ConfirmNoOtherRunner: true}, nil)
		wantCode(t, err, model.CodeFailedPrecondition)
	}
	conn.read = map[string]any{"id": target, "status": map[string]any{"type": "idle"}}
	running = true
	_, err = cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: target, ConfirmNoOtherRunner: true}, nil)
	wantCode(t, err, model.CodeFailedPrecondition)
	conn.read = map[string]any{"id": target, "status": map[string]any{"type": "notLoaded"}, "path": "/h/archived_sessions/rollout.jsonl"}
	running = false
	_, err = cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: target, ConfirmNoOtherRunner: true}, nil)
	wantCode(t, err, model.CodeFailedPrecondition)
	conn.readErr = &appserver.RPCError{Message: "thread not loaded: " + target, Code: -32600}
	_, err = cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: target, ConfirmNoOtherRunner: true}, nil)
	wantCode(t, err, model.CodeThreadNotFound)
	if len(conn.archived) != 0 {
		t.Fatalf("archived %v", conn.archived)
	}
}

// Scenario: S003-L — a transcript page whose items exceed the byte limit is refused; pages
// are 20 turns, read with thread/turns/list only.
func TestS003_L_TranscriptPageOverLimitIsRefused(t *testing.T) {
	t.Parallel()
	target := "01a22b08-0000-7000-8000-000000000001"
	big := strings.Repeat("x", 2000)
	conn := &fakeConn{turns: func(p turnsParams) (json.RawMessage, error) {
		if p.Limit != DefaultTurnsPerPage || p.ItemsView != "summary" {
			return nil, errors.New("unexpected page request")
		}
		var turns []map[string]any
		for i := range p.Limit {
			turns = append(turns, map[string]any{"id": fmt.Sprint(i), "status": "completed", "items": []map[string]any{{"type": "agentMessage", "id": "m", "text": big}}})
		}
		return json.Marshal(map[string]any{"data": turns})
	}}
	cat, _ := New([]HostSpec{{ID: LocalHostID, Source: &fakeSource{conn: conn}}}, Options{PageBytes: 20 * 2000})
	_, err := cat.Transcript(context.Background(), api.CatalogTranscriptParams{Thread: target})
	wantCode(t, err, model.CodeFailedPrecondition)
	cat2, _ := New([]HostSpec{{ID: LocalHostID, Source: &fakeSource{conn: conn}}}, Options{})
	res, err := cat2.Transcript(context.Background(), api.CatalogTranscriptParams{Thread: target})
	if err != nil || len(res.Turns) != 20 {
		t.Fatalf("within the limit: %d turns, %v", len(res.Turns), err)
	}
	// Never an unbounded thread/read: only bounded turn pages were asked for.
	if conn.count("thread/read") != 0 || conn.count("thread/turns/list") != 2 {
		t.Fatalf("calls %+v", conn.calls)
	}
}

func TestExtraHostIDIsStableAndOpaque(t *testing.T) {
	t.Parallel()
	a, b := ExtraHostID("/srv/secret-home"), ExtraHostID("/srv/secret-home/")
	if a != b || !strings.HasPrefix(a, LocalHostID+":") || has(a, "secret") || a == ExtraHostID("/srv/other") {
		t.Fatalf("ids %q %q", a, b)
	}
}

// Transcript messages are user and assistant text only; images become a placeholder, never
// their payload or path, and other items (commands, reasoning) are left out.
func TestTranscriptTurnShowsMessagesOnlyAndHidesImages(t *testing.T) {
	t.Parallel()
	var turn appserver.Turn
	raw := `{"id":"t1","status":"completed","items":[
		{"type":"userMessage","id":"u","content":[{"type":"text","text":"look"},{"type":"localImage","path":"/secret/pic.png"},{"type":"image","url":"data:image/png;base64,SECRET"}]},
		{"type":"reasoning","id":"r","summary":["SECRET thinking"]},
		{"type":"commandExecution","id":"c","command":"cat /secret/file","aggregatedOutput":"SECRET"},
		{"type":"agentMessage","id":"a","text":"done","completedAtMs":1796011750993}]}`
	if err := json.Unmarshal([]byte(raw), &turn); err != nil {
		t.Fatal(err)
	}
	ct := projectTurn(turn)
	b, _ := json.Marshal(ct)
	if len(ct.Messages) != 2 || ct.Messages[0].Text != "look\n"+imagePlaceholder+"\n"+imagePlaceholder || ct.Messages[1].Text != "done" || has(string(b), "SECRET") || has(string(b), "/secret") {
		t.Fatalf("turn %s", b)
	}
}

// A failed turn keeps Codex's reason, so the fleet can say why and not only that it failed.
func TestTranscriptTurnKeepsTheFailureReason(t *testing.T) {
	t.Parallel()
	var turn appserver.Turn
	raw := `{"id":"t1","status":"failed","error":{"message":"stream disconnected before completion: idle timeout"},"items":[]}`
	if err := json.Unmarshal([]byte(raw), &turn); err != nil {
		t.Fatal(err)
	}
	if ct := projectTurn(turn); ct.Error != "stream disconnected before completion: idle timeout" {
		t.Fatalf("turn error %q", ct.Error)
	}
}
