// Package codexfixture makes Codex threads for tests the way another Codex client would leave
// them. It is apart from codextest because it uses the App Server client, whose own tests
// import codextest.
package codexfixture

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// turnWait bounds one turn against the loopback fake model.
const turnWait = 60 * time.Second

// StoredThread makes a thread in codexHome with one completed turn per text, using an App
// Server of its own (started with model when given) that is stopped before returning: the
// thread is on disk and loaded nowhere. It returns the thread id and its rollout path.
func StoredThread(t testing.TB, codexHome, model string, texts ...string) (id, rollout string) {
	t.Helper()
	ctx := context.Background()
	c := start(t, codexHome)
	defer c.Close()
	res, err := c.ThreadStart(ctx, appserver.ThreadStartParams{Cwd: t.TempDir(), Model: model})
	if err != nil {
		t.Fatal(err)
	}
	id = res.Thread.ID
	notes, stop := c.Subscribe(func(m string) bool { return m == appserver.NoteTurnCompleted })
	defer stop()
	for _, text := range texts {
		turn, err := c.TurnStart(ctx, appserver.TurnStartParams{ThreadID: id, Input: appserver.TextInput(text)})
		if err != nil {
			t.Fatal(err)
		}
		waitCompleted(t, notes, id, turn.ID)
	}
	th, err := c.ThreadRead(ctx, id)
	if err != nil || th.Path == nil {
		t.Fatalf("read the stored thread %s: %v", id, err)
	}
	return id, *th.Path
}

func waitCompleted(t testing.TB, notes <-chan appserver.Notification, threadID, turnID string) {
	t.Helper()
	deadline := time.After(turnWait)
	for {
		select {
		case n := <-notes:
			var ev appserver.TurnEvent
			if json.Unmarshal(n.Params, &ev) != nil || ev.ThreadID != threadID || ev.Turn.ID != turnID {
				continue
			}
			if ev.Turn.Status != appserver.TurnCompleted {
				t.Fatalf("turn %s of the stored thread ended %s", turnID, ev.Turn.Status)
			}
			return
		case <-deadline:
			t.Fatalf("turn %s of the stored thread %s did not complete", turnID, threadID)
		}
	}
}

// start runs an App Server of the fixture's own on codexHome.
func start(t testing.TB, codexHome string) *appserver.Client {
	t.Helper()
	c, err := appserver.Start(context.Background(), appserver.Config{Bin: codextest.CodexBin(t), Env: codextest.Env(codexHome), Dir: codexHome,
		StderrLog: filepath.Join(t.TempDir(), "fixture-app-server.log")})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
