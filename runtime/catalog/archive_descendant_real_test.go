package catalog

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/harness"
)

// These tests archive a parent whose model spawned a real sub-agent: the fake model answers
// the parent's turn with a spawn_agent call (Codex's multi-agent tool, on by default in
// 0.169.0), and the spawn message carries the marker that keeps the sub-agent's own model
// call streaming until the test ends its turn.

// slowChild keeps the sub-agent's turn running: a slow stream well past any test's length,
// which only an interrupt (or the fake's Close) ends. Slow rather than Hang, since Codex
// fails a silent stream after its idle timeout.
const slowChild = "[[mode:slow]] [[duration:600]] sub-agent task"

// pollUntil checks cond every 50ms until it holds; it fails the test after a minute.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// descendants is thread/list with ancestorThreadId over every source kind, as archive pages it.
func descendants(t *testing.T, c *appserver.Client, id string) []appserver.Thread {
	t.Helper()
	var res appserver.ThreadListResult
	err := c.Call(context.Background(), "thread/list", listParams{Limit: NativePageSize, UseStateDBOnly: true, AncestorThreadID: id, SourceKinds: allSourceKinds}, &res)
	if err != nil {
		t.Fatalf("thread/list ancestorThreadId=%s: %v", id, err)
	}
	return res.Data
}

// spawnedChild waits until exactly one descendant of parent is listed and checks that Codex
// recorded it as a sub-agent that parent spawned.
func spawnedChild(t *testing.T, c *appserver.Client, parent string) string {
	t.Helper()
	var kids []appserver.Thread
	pollUntil(t, "the parent has a listed descendant", func() bool {
		kids = descendants(t, c, parent)
		return len(kids) > 0
	})
	if len(kids) != 1 {
		t.Fatalf("descendants of %s: %+v", parent, kids)
	}
	kid := kids[0]
	var src struct {
		SubAgent struct {
			ThreadSpawn struct {
				ParentThreadID string `json:"parent_thread_id"`
			} `json:"thread_spawn"`
		} `json:"subAgent"`
	}
	_ = json.Unmarshal(kid.Source, &src)
	if kid.ParentID == nil || *kid.ParentID != parent || src.SubAgent.ThreadSpawn.ParentThreadID != parent {
		t.Fatalf("descendant %s is not a sub-agent spawned by %s: parent %v, source %s", kid.ID, parent, kid.ParentID, kid.Source)
	}
	return kid.ID
}

// streaming waits until the fake model streams the slow answer of the sub-agent's turn; the
// thread-id header names the thread a model call belongs to.
func streaming(t *testing.T, fake *fakemodel.Server, thread string) {
	t.Helper()
	pollUntil(t, "the sub-agent's model call streams", func() bool {
		return slices.ContainsFunc(fake.Requests(), func(r fakemodel.Request) bool {
			return r.Header.Get("thread-id") == thread && r.Mode == "slow" && !r.Disconnected
		})
	})
}

func status(t *testing.T, c *appserver.Client, id string) string {
	t.Helper()
	th, err := c.ThreadRead(context.Background(), id)
	if err != nil {
		t.Fatalf("thread/read %s: %v", id, err)
	}
	return th.Status.Type
}

func isArchived(t *testing.T, c *appserver.Client, id string) bool {
	t.Helper()
	yes := true
	res, err := c.ThreadList(context.Background(), appserver.ThreadListParams{Archived: &yes, SourceKinds: allSourceKinds})
	if err != nil {
		t.Fatalf("thread/list archived: %v", err)
	}
	return slices.ContainsFunc(res.Data, func(th appserver.Thread) bool { return th.ID == id })
}

func wantRefusal(t *testing.T, err error, parts ...string) {
	t.Helper()
	wantCode(t, err, model.CodeFailedPrecondition)
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("refusal %q does not say %q", err, p)
		}
	}
}

// nativeSpec is gateway:local as the runtime wires it: the harness's App Server, and Running
// from the turns that App Server runs.
func nativeSpec(n *harness.Native) HostSpec {
	return HostSpec{ID: LocalHostID, Default: true,
		Source:  SourceFunc(func(ctx context.Context) (Conn, error) { return n.Client(ctx) }),
		Running: func(id string) bool { return slices.Contains(n.Active(), model.ThreadID(id)) },
	}
}

// Scenario: S003-16 — a runtime thread whose model spawned a sub-agent cannot be archived
// while that sub-agent runs in the runtime's App Server, as the runtime wires gateway:local:
// the catalog reads the descendant's live status there, so the refusal names it as active
// (Running reports it too, but the status check comes first). Archiving the sub-agent itself
// is refused likewise. Once its turn ended, the parent archives.
func TestS003_16_ArchiveRefusedWhileASpawnedSubAgentRuns(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	ctx := context.Background()
	native := harness.NewNative(harness.NativeOptions{Start: e.startFn(e.home())})
	t.Cleanup(func() { _ = native.Close() })
	parent, err := native.Start(ctx, harness.StartRequest{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	spawn, _ := json.Marshal(map[string]string{"message": slowChild})
	e.fake.Enqueue(fakemodel.FunctionCall("spawn_agent", string(spawn)))
	if _, err := native.Send(ctx, parent, "delegate this"); err != nil {
		t.Fatal(err)
	}
	c, err := native.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	child := spawnedChild(t, c, string(parent))
	streaming(t, e.fake, child)
	// The parent's own turn ends with the spawn; only the sub-agent keeps running.
	pollUntil(t, "the runtime sees the sub-agent run and the parent idle", func() bool {
		active := native.Active()
		return slices.Equal(active, []model.ThreadID{model.ThreadID(child)})
	})
	if st := status(t, c, string(parent)); st != appserver.StatusIdle {
		t.Fatalf("parent is %s, want idle", st)
	}

	cat := e.catalog([]HostSpec{nativeSpec(native)}, Options{})
	_, err = cat.Archive(ctx, api.CatalogArchiveParams{Thread: string(parent), ConfirmNoOtherRunner: true}, nil)
	wantRefusal(t, err, "descendant "+child+" is active")
	_, err = cat.Archive(ctx, api.CatalogArchiveParams{Thread: child, ConfirmNoOtherRunner: true}, nil)
	wantRefusal(t, err, child+" is active")
	if isArchived(t, c, string(parent)) || isArchived(t, c, child) {
		t.Fatal("a refused archive archived something")
	}

	// End the sub-agent's turn the way the runtime cancels one.
	if _, err := native.Cancel(ctx, model.ThreadID(child)); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "parent and sub-agent are idle", func() bool {
		return len(native.Active()) == 0 && status(t, c, child) == appserver.StatusIdle && status(t, c, string(parent)) == appserver.StatusIdle
	})
	res, err := cat.Archive(ctx, api.CatalogArchiveParams{Thread: string(parent), ConfirmNoOtherRunner: true}, nil)
	if err != nil || !res.Archived || res.Thread != string(parent) {
		t.Fatalf("archive after the sub-agent's turn ended: %+v %v", res, err)
	}
	if !isArchived(t, c, string(parent)) {
		t.Fatal("Codex did not archive the parent")
	}
	// Codex archives the spawned sub-agents with their parent, and in its own process it
	// accepts that even while one runs: the catalog's check is what protects it.
	if !isArchived(t, c, child) || len(descendants(t, c, string(parent))) != 0 {
		t.Fatal("Codex did not archive the sub-agent with its parent")
	}
}

// Scenario: S003-16 — seen from an App Server that does not run it, a spawned sub-agent reads
// notLoaded, and what blocks archiving its parent is the owner: a turn this runtime runs on it
// (HostSpec.Running), and after that turn, the other Codex process that still holds it open.
// The runtime's own App Server, where the sub-agent is idle, archives the parent.
func TestS003_16_SpawnedSubAgentOwnersBlockArchiveFromAnotherAppServer(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	ctx := context.Background()
	home := e.home()
	// Another Codex client made the parent and its sub-agent, then quit: both are stored only.
	author := e.client(home)
	th, err := author.ThreadStart(ctx, appserver.ThreadStartParams{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	parent := th.Thread.ID
	spawn, _ := json.Marshal(map[string]string{"message": "[[reply:sub-agent done]] sub-agent task"})
	e.fake.Enqueue(fakemodel.FunctionCall("spawn_agent", string(spawn)))
	e.turn(author, parent, "delegate this")
	child := spawnedChild(t, author, parent)
	pollUntil(t, "the sub-agent's first turn ended", func() bool { return status(t, author, child) == appserver.StatusIdle })
	_ = author.Close()

	// The runtime continues the sub-agent with a turn that keeps running.
	native := harness.NewNative(harness.NativeOptions{Start: e.startFn(home)})
	t.Cleanup(func() { _ = native.Close() })
	if _, err := native.Send(ctx, model.ThreadID(child), slowChild); err != nil {
		t.Fatal(err)
	}
	streaming(t, e.fake, child)
	pollUntil(t, "the runtime runs the sub-agent", func() bool {
		return slices.Equal(native.Active(), []model.ThreadID{model.ThreadID(child)})
	})

	// The catalog's App Server is not the one running the sub-agent; only Running knows.
	other := e.client(home)
	if kids := descendants(t, other, parent); len(kids) != 1 || kids[0].ID != child || kids[0].Status.Type != appserver.StatusNotLoaded {
		t.Fatalf("descendants seen from the other App Server: %+v", kids)
	}
	running := e.catalog([]HostSpec{{ID: LocalHostID, Default: true, Running: nativeSpec(native).Running,
		Source: SourceFunc(func(context.Context) (Conn, error) { return other, nil })}}, Options{})
	_, err = running.Archive(ctx, api.CatalogArchiveParams{Thread: parent, ConfirmNoOtherRunner: true}, nil)
	wantRefusal(t, err, "descendant "+child+" is running a turn in this runtime")

	if _, err := native.Cancel(ctx, model.ThreadID(child)); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "the sub-agent's turn ended", func() bool { return len(native.Active()) == 0 })
	// The runtime's App Server still has the sub-agent loaded, which holds its writer lock.
	_, err = running.Archive(ctx, api.CatalogArchiveParams{Thread: parent, ConfirmNoOtherRunner: true}, nil)
	wantRefusal(t, err, "descendant "+child+" is open in another Codex process")
	if isArchived(t, other, parent) {
		t.Fatal("a refused archive archived the parent")
	}

	res, err := e.catalog([]HostSpec{nativeSpec(native)}, Options{}).Archive(ctx, api.CatalogArchiveParams{Thread: parent, ConfirmNoOtherRunner: true}, nil)
	if err != nil || !res.Archived {
		t.Fatalf("archive from the runtime's App Server: %+v %v", res, err)
	}
	if !isArchived(t, other, parent) {
		t.Fatal("Codex did not archive the parent")
	}
}
