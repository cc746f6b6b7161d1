package supervise

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/store"
)

// supEnv is a catalog with a supervisor on a real App Server and a real store.
type supEnv struct {
	*realEnv
	home string // Codex home
	conn *appserver.Client
	cat  *catalog.Catalog
	sup  *Branches
	st   *store.Store
}

func newSupEnv(t *testing.T) *supEnv {
	t.Helper()
	e := &supEnv{realEnv: newRealEnv(t)}
	e.home = e.realEnv.home()
	e.conn = e.client(e.home)
	e.cat = newCatalog(t, []catalog.HostSpec{localSpec(e.conn)}, catalog.Options{ReadAheadPages: -1})
	e.st = newStore(t)
	var err error
	e.sup, err = NewBranches(e.cat, e.st, filepath.Join(t.TempDir(), "supervision"), BranchOptions{})
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
	id := e.thread(other, texts...)
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
	t.Parallel()
	e := newSupEnv(t)
	ctx := context.Background()
	src, _ := e.storedSource("hello source")

	b, err := e.sup.Continue(ctx, api.CatalogContinueParams{Thread: src})
	if err != nil || b.Existing || b.Supervision.State != model.SupervisionPending || b.Supervision.Source != model.ThreadID(src) {
		t.Fatalf("continue: %+v %v", b, err)
	}
	again, err := e.sup.Continue(ctx, api.CatalogContinueParams{Thread: src, Host: catalog.LocalHostID})
	if err != nil || !again.Existing || again.Supervision.Thread != b.Supervision.Thread {
		t.Fatalf("second continue: %+v %v", again, err)
	}
	fi, err := os.Stat(e.sup.historyPath(b.Supervision.Thread))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file: %v %v", fi, err)
	}

	_, err = e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: src, ConfirmNoOtherRunner: true}, e.sup)
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
	_, err = e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: src, ConfirmNoOtherRunner: true}, e.sup)
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
	_, err = e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: string(bound.Canonical), ConfirmNoOtherRunner: true}, e.sup)
	wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(err.Error(), "canonical thread of supervised thread") {
		t.Fatalf("archive of the canonical thread: %v", err)
	}
	if res, err := e.cat.Archive(ctx, api.CatalogArchiveParams{Thread: src, ConfirmNoOtherRunner: true}, e.sup); err != nil || !res.Archived {
		t.Fatalf("archive of the source once bound: %+v %v", res, err)
	}
}

// Scenario: S003-11 — a failed pin (the source's rollout is gone) leaves the branch pending
// and changes nothing; once it is back the pin succeeds, the source's rollout is byte for byte
// what it was and the source was never loaded; an archived source offers no branch.
func TestS003_11_PinNeverResumesTheSourceAndAFailedPinIsRetryable(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	local := &readConn{}
	cat := newCatalog(t, []catalog.HostSpec{localSpec(local), {ID: catalog.LocalHostID + ":abc", Source: catalog.SourceFunc(func(context.Context) (catalog.Conn, error) { return &readConn{}, nil })}},
		catalog.Options{ReadAheadPages: -1})
	dir := filepath.Join(t.TempDir(), "supervision")
	sup, err := NewBranches(cat, newStore(t), dir, BranchOptions{})
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
	local.readErr = &appserver.RPCError{Method: "thread/read", Code: -32600, Message: "thread not loaded: 01a22b08-0000-7000-8000-000000000001"}
	_, err = sup.Continue(ctx, api.CatalogContinueParams{Thread: "01a22b08-0000-7000-8000-000000000001"})
	wantCode(t, err, model.CodeThreadNotFound)
	local.readErr = nil
	local.read = map[string]any{"id": "01a22b08-0000-7000-8000-000000000001", "status": map[string]any{"type": "systemError"}}
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
	t.Parallel()
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
