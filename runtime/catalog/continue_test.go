package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/store"
)

// turnJSON builds a turn as thread/turns/list returns it, so the items go through the same
// decoding as the App Server's.
func turnJSON(t *testing.T, id, status string, items ...map[string]any) appserver.Turn {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": id, "status": status, "items": items})
	if err != nil {
		t.Fatal(err)
	}
	var turn appserver.Turn
	if err := json.Unmarshal(b, &turn); err != nil {
		t.Fatal(err)
	}
	return turn
}

func userItem(text string) map[string]any {
	return map[string]any{"type": "userMessage", "id": "u", "content": []map[string]any{{"type": "text", "text": text}}}
}

func agentItem(text string) map[string]any {
	return map[string]any{"type": "agentMessage", "id": "a", "text": text}
}

// turns makes n completed turns of one user and one assistant message each, newest first;
// turn i carries "q<i>" and "a<i>" followed by pad.
func turnsOf(t *testing.T, n int, pad string) []appserver.Turn {
	var out []appserver.Turn
	for i := n - 1; i >= 0; i-- {
		out = append(out, turnJSON(t, fmt.Sprintf("t%d", i), "completed", userItem(fmt.Sprintf("q%d%s", i, pad)), agentItem(fmt.Sprintf("a%d%s", i, pad))))
	}
	return out
}

// Scenario: S003-10 — at most 200 messages, the newest ones, oldest first; older ones are
// marked as left out.
func TestS003_10_HistoryKeepsTheNewest200Messages(t *testing.T) {
	h := BuildHistory("title", turnsOf(t, 125, ""))
	if len(h.Messages) != HistoryMaxMessages || !h.OlderOmitted || h.Truncated != 0 {
		t.Fatalf("%d messages, olderOmitted %v, truncated %d", len(h.Messages), h.OlderOmitted, h.Truncated)
	}
	// 250 messages: the newest 200 are turns 25..124.
	if first, last := h.Messages[0], h.Messages[len(h.Messages)-1]; first.Text != "q25" || first.Role != model.RoleUser || last.Text != "a124" || last.Role != model.RoleAssistant || first.TurnID != "t25" {
		t.Fatalf("kept %+v .. %+v", first, last)
	}
	// Exactly 200 is not an omission.
	if h := BuildHistory("", turnsOf(t, 100, "")); len(h.Messages) != 200 || h.OlderOmitted {
		t.Fatalf("100 turns: %d messages, olderOmitted %v", len(h.Messages), h.OlderOmitted)
	}
}

// Scenario: S003-10 — each message at most 64 KiB, marked when cut (at a character
// boundary), and 512 KiB in all.
func TestS003_10_HistoryBoundsBytesAndMarksTruncation(t *testing.T) {
	long := strings.Repeat("é", 40<<10) // 80 KiB of two-byte characters
	h := BuildHistory("", []appserver.Turn{turnJSON(t, "t0", "completed", userItem("short"), agentItem(long))})
	if len(h.Messages) != 2 || h.Truncated != 1 || h.OlderOmitted {
		t.Fatalf("%d messages, truncated %d", len(h.Messages), h.Truncated)
	}
	cut := h.Messages[1].Text
	if len(cut) > HistoryMaxMessageBytes || len(cut) < HistoryMaxMessageBytes-4 || !strings.HasSuffix(cut, TruncatedMarker) || !utf8.ValidString(cut) {
		t.Fatalf("cut message: %d bytes, marker %v, valid %v", len(cut), strings.HasSuffix(cut, TruncatedMarker), utf8.ValidString(cut))
	}
	if h.Bytes != len("short")+len(cut) {
		t.Fatalf("bytes %d", h.Bytes)
	}

	// 60 KiB messages: eight fit in 512 KiB, the ninth would not.
	pad := strings.Repeat("x", 60<<10)
	h = BuildHistory("", turnsOf(t, 10, pad))
	if len(h.Messages) != 8 || !h.OlderOmitted || h.Bytes > HistoryMaxBytes || h.Truncated != 0 {
		t.Fatalf("%d messages, %d bytes, olderOmitted %v", len(h.Messages), h.Bytes, h.OlderOmitted)
	}
	if !strings.HasPrefix(h.Messages[0].Text, "q6") || !strings.HasPrefix(h.Messages[7].Text, "a9") {
		t.Fatalf("kept %.3s .. %.3s", h.Messages[0].Text, h.Messages[7].Text)
	}
}

// Scenario: S003-10 — images become a placeholder; reasoning, tool calls and results, image
// payloads and paths are left out; a turn still running is not carried, earlier interrupted
// and failed turns are.
func TestS003_10_HistoryKeepsOnlyVisibleMessages(t *testing.T) {
	img := map[string]any{"type": "userMessage", "id": "u", "content": []map[string]any{
		{"type": "text", "text": "look at this"},
		{"type": "image", "url": "data:image/png;base64,SECRETPAYLOAD"},
		{"type": "localImage", "path": "/home/me/secret/shot.png"},
	}}
	turns := []appserver.Turn{ // newest first
		turnJSON(t, "t4", "inProgress", userItem("still running"), agentItem("partial")),
		turnJSON(t, "t3", "failed", userItem("q3")),
		turnJSON(t, "t2", "interrupted", userItem("q2"), agentItem("a2 cut off")),
		turnJSON(t, "t1", "completed", img,
			map[string]any{"type": "reasoning", "id": "r", "summary": []string{"SECRET REASONING"}},
			map[string]any{"type": "commandExecution", "id": "c", "command": "cat /etc/SECRETFILE", "aggregatedOutput": "SECRET OUTPUT"},
			map[string]any{"type": "mcpToolCall", "id": "m", "arguments": "SECRET ARGS", "result": "SECRET RESULT"},
			agentItem("a1")),
	}
	h := BuildHistory("", turns)
	var got []string
	for _, m := range h.Messages {
		got = append(got, m.Role+":"+m.Text)
	}
	want := []string{"user:look at this\n[Image attachment]\n[Image attachment]", "assistant:a1", "user:q2", "assistant:a2 cut off", "user:q3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("history\n got %q\nwant %q", got, want)
	}
	raw, _ := json.Marshal(h)
	for _, leak := range []string{"SECRET", "shot.png", "base64", "still running", "partial"} {
		if strings.Contains(string(raw), leak) {
			t.Fatalf("history holds %q: %s", leak, raw)
		}
	}
}

// supEnv is a catalog with a supervisor on a real App Server and a real store.
type supEnv struct {
	*realEnv
	home string // Codex home
	conn *appserver.Client
	cat  *Catalog
	sup  *Supervisor
	st   *store.Store
}

func newSupEnv(t *testing.T) *supEnv {
	t.Helper()
	e := &supEnv{realEnv: newRealEnv(t)}
	e.home = e.realEnv.home()
	e.conn = e.client(e.home)
	e.cat = e.catalog([]HostSpec{localSpec(e.conn)}, Options{ReadAheadPages: -1})
	st, err := store.Open(filepath.Join(t.TempDir(), "chh"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e.st = st
	e.sup, err = NewSupervisor(e.cat, st, filepath.Join(t.TempDir(), "supervision"))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// storedSource makes a thread in another App Server on the same home, stopped before this
// returns: a stored (notLoaded) source, as Codex Desktop leaves one.
func (e *supEnv) storedSource(texts ...string) (string, string) {
	e.t.Helper()
	other := e.client(e.home)
	id := e.thread(other, "", texts...)
	th, err := other.ThreadRead(context.Background(), id)
	if err != nil || th.Path == nil {
		e.t.Fatalf("read source: %v", err)
	}
	_ = other.Close()
	return id, *th.Path
}

// failConn makes one method of a real connection fail as the App Server refusing it.
type failConn struct {
	*appserver.Client
	method string
}

func (f failConn) Call(ctx context.Context, method string, params, out any) error {
	if method == f.method {
		return &appserver.RPCError{Method: method, Code: -32600, Message: "refused by the test"}
	}
	return f.Client.Call(ctx, method, params, out)
}

// Scenario: S003-04, S003-09, S003-12, S003-15 — continue makes a pending branch once (the
// same one on a repeat call); while it is pending the source cannot be archived; a failed
// canonical start or injection leaves it pending and retryable; the pin commits it (the
// canonical thread has the appServer source) and archive of the source is allowed again,
// while the canonical thread it protects is not archived.
func TestS003_15_PendingBranchBlocksArchiveUntilItsFirstTurn(t *testing.T) {
	e := newSupEnv(t)
	ctx := context.Background()
	src, _ := e.storedSource("hello source")

	b, err := e.sup.Continue(ctx, api.CatalogContinueParams{Thread: src})
	if err != nil || b.Existing || b.Supervision.State != model.SupervisionPending || b.Supervision.Source != model.ThreadID(src) {
		t.Fatalf("continue: %+v %v", b, err)
	}
	again, err := e.sup.Continue(ctx, api.CatalogContinueParams{Thread: src, Host: LocalHostID})
	if err != nil || !again.Existing || again.Supervision.Thread != b.Supervision.Thread {
		t.Fatalf("second continue: %+v %v", again, err)
	}
	fi, err := os.Stat(e.sup.historyPath(b.Supervision.Thread))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file: %v %v", fi, err)
	}

	_, err = e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: src, ConfirmNoOtherRunner: true})
	wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(err.Error(), "pending supervised branch") {
		t.Fatalf("archive error: %v", err)
	}

	_, err = e.sup.Pin(ctx, failConn{e.conn, "thread/start"}, b.Supervision)
	wantCode(t, err, model.CodeFailedPrecondition)
	if sup, _ := e.st.Supervision(b.Supervision.Thread); sup.State != model.SupervisionPending || sup.Canonical != "" {
		t.Fatalf("after a failed start: %+v", sup)
	}
	_, err = e.sup.Pin(ctx, failConn{e.conn, "thread/inject_items"}, b.Supervision)
	wantCode(t, err, model.CodeFailedPrecondition)
	_, err = e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: src, ConfirmNoOtherRunner: true})
	wantCode(t, err, model.CodeFailedPrecondition)

	bound, err := e.sup.Pin(ctx, e.conn, b.Supervision)
	if err != nil || bound.State != model.SupervisionBound || bound.Canonical == "" || bound.Model != "mock-model" || bound.ModelProvider != "fake" {
		t.Fatalf("pin: %+v %v", bound, err)
	}
	canon, err := e.conn.ThreadRead(ctx, string(bound.Canonical))
	if err != nil || canon.ThreadSource == nil || *canon.ThreadSource != "appServer" || canon.ForkedFromID != nil {
		t.Fatalf("canonical thread: %+v %v", canon, err)
	}
	// A repeat continue, by source, supervised id or canonical id, opens the same thread.
	for _, id := range []string{src, string(b.Supervision.Thread), string(bound.Canonical)} {
		got, err := e.sup.Continue(ctx, api.CatalogContinueParams{Thread: id})
		if err != nil || !got.Existing || got.Supervision.Thread != b.Supervision.Thread || got.Supervision.State != model.SupervisionBound {
			t.Fatalf("continue %s after the pin: %+v %v", id, got, err)
		}
	}
	// The canonical thread needs a turn to be stored; the binding then protects it.
	e.turn(e.conn, string(bound.Canonical), "first turn")
	_, err = e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: string(bound.Canonical), ConfirmNoOtherRunner: true})
	wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(err.Error(), "canonical thread of supervised thread") {
		t.Fatalf("archive of the canonical thread: %v", err)
	}
	if res, err := e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: src, ConfirmNoOtherRunner: true}); err != nil || !res.Archived {
		t.Fatalf("archive of the source once bound: %+v %v", res, err)
	}
}

// Scenario: S003-11 — a failed pin (the source's rollout is gone) leaves the branch pending
// and changes nothing; once it is back the pin succeeds, the source's rollout is byte for byte
// what it was and the source was never loaded; an archived source offers no branch.
func TestS003_11_PinNeverResumesTheSourceAndAFailedPinIsRetryable(t *testing.T) {
	e := newSupEnv(t)
	ctx := context.Background()
	src, path := e.storedSource("first question", "second question")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.sup.Continue(ctx, api.CatalogContinueParams{Thread: src})
	if err != nil {
		t.Fatal(err)
	}
	hist, err := e.sup.History(b.Supervision.Thread)
	if err != nil || len(hist.Messages) != 4 || hist.Messages[0].Text != "first question" || hist.Messages[3].Role != model.RoleAssistant {
		t.Fatalf("history: %+v %v", hist, err)
	}

	if err := os.Rename(path, path+".away"); err != nil {
		t.Fatal(err)
	}
	_, err = e.sup.Pin(ctx, e.conn, b.Supervision)
	wantCode(t, err, model.CodeFailedPrecondition)
	if sup, _ := e.st.Supervision(b.Supervision.Thread); sup.State != model.SupervisionPending {
		t.Fatalf("after a failed pin: %+v", sup)
	}
	if err := os.Rename(path+".away", path); err != nil {
		t.Fatal(err)
	}
	bound, err := e.sup.Pin(ctx, e.conn, b.Supervision)
	if err != nil || bound.State != model.SupervisionBound {
		t.Fatalf("retried pin: %+v %v", bound, err)
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Fatalf("the source's rollout changed (%v)", err)
	}
	var loaded appserver.LoadedListResult
	if err := e.conn.Call(ctx, "thread/loaded/list", map[string]any{}, &loaded); err != nil {
		t.Fatal(err)
	}
	for _, id := range loaded.Data {
		if id == src {
			t.Fatalf("the source was loaded: %v", loaded.Data)
		}
	}

	other, _ := e.storedSource("to be archived")
	if err := e.conn.ThreadArchive(ctx, other); err != nil {
		t.Fatal(err)
	}
	_, err = e.sup.Continue(ctx, api.CatalogContinueParams{Thread: other})
	wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(err.Error(), "archived") {
		t.Fatalf("continue of an archived source: %v", err)
	}
}

// Bad input: node hosts, unknown hosts and threads are refused with their codes and leave no
// branch behind.
func TestContinueRefusesNodesUnknownHostsAndThreads(t *testing.T) {
	fx := newFixture(t, 0, Options{})
	st, err := store.Open(filepath.Join(t.TempDir(), "chh"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := filepath.Join(t.TempDir(), "supervision")
	sup, err := NewSupervisor(fx.cat, st, dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = sup.Continue(ctx, api.CatalogContinueParams{Thread: "01a22b08-0000-7000-8000-000000000001", Host: "node:mac"})
	wantCode(t, err, model.CodeInvalidArgument) // not paired
	_, err = sup.Continue(ctx, api.CatalogContinueParams{Thread: "01a22b08-0000-7000-8000-000000000001", Host: "gateway:elsewhere"})
	wantCode(t, err, model.CodeInvalidArgument)
	_, err = sup.Continue(ctx, api.CatalogContinueParams{Thread: "not-a-thread"})
	wantCode(t, err, model.CodeInvalidArgument)
	fx.local.conn.readErr = &appserver.RPCError{Method: "thread/read", Code: -32600, Message: "thread not loaded: 01a22b08-0000-7000-8000-000000000001"}
	_, err = sup.Continue(ctx, api.CatalogContinueParams{Thread: "01a22b08-0000-7000-8000-000000000001"})
	wantCode(t, err, model.CodeThreadNotFound)
	fx.local.conn.readErr = nil
	fx.local.conn.read = map[string]any{"id": "01a22b08-0000-7000-8000-000000000001", "status": map[string]any{"type": "systemError"}}
	_, err = sup.Continue(ctx, api.CatalogContinueParams{Thread: "01a22b08-0000-7000-8000-000000000001"})
	wantCode(t, err, model.CodeFailedPrecondition)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("refused continues left files: %v", entries)
	}
}

// flipConn is a connection whose App Server process is replaced after the pin's fork.
type flipConn struct {
	*appserver.Client
	forked *bool
}

func (f flipConn) Call(ctx context.Context, method string, params, out any) error {
	if method == "thread/fork" {
		*f.forked = true
	}
	return f.Client.Call(ctx, method, params, out)
}

func (f flipConn) Pid() int {
	if *f.forked {
		return f.Client.Pid() + 1
	}
	return f.Client.Pid()
}

// Scenario: S003-08 — a supervision connection that changes during the pin fails closed: no
// canonical thread is committed, and the branch stays pending for the next send.
func TestS003_08_ChangedConnectionFailsClosed(t *testing.T) {
	e := newSupEnv(t)
	ctx := context.Background()
	src, _ := e.storedSource("hello")
	b, err := e.sup.Continue(ctx, api.CatalogContinueParams{Thread: src})
	if err != nil {
		t.Fatal(err)
	}
	forked := false
	_, err = e.sup.Pin(ctx, flipConn{e.conn, &forked}, b.Supervision)
	wantCode(t, err, model.CodeAppServerUnavailable)
	if sup, _ := e.st.Supervision(b.Supervision.Thread); sup.State != model.SupervisionPending || sup.Canonical != "" {
		t.Fatalf("after a changed connection: %+v", sup)
	}
	if bound, err := e.sup.Pin(ctx, e.conn, b.Supervision); err != nil || bound.State != model.SupervisionBound {
		t.Fatalf("retried pin: %+v %v", bound, err)
	}
}
