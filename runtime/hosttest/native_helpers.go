package hosttest

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/harness"
)

// SlowTask makes the fake model stream for a minute, so the turn stays active until cancelled.
const SlowTask = "[[mode:slow]] [[delay:0.2]] [[duration:60]] keep going"

// StartNative starts a thread and a turn on the native harness directly (no delegation) and
// waits until Codex lists the turn, so the thread is on disk before the API reads it.
func StartNative(t testing.TB, th *Host, text string) model.ThreadID {
	t.Helper()
	ctx := context.Background()
	id, err := th.Native().Start(ctx, harness.StartRequest{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := th.Native().Send(ctx, id, text); err != nil {
		t.Fatal(err)
	}
	c, err := th.Native().Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	Eventually(t, "Codex to persist the first turn of "+string(id), func() bool {
		res, err := c.TurnsList(ctx, appserver.TurnsListParams{ThreadID: string(id), Limit: 1})
		return err == nil && len(res.Data) == 1
	})
	return id
}

// NativeState is what reading a native thread must leave as it was.
type NativeState struct {
	Rollout []byte
	Status  string
	Loaded  []string
}

// ObserveNative reads a native thread's rollout and status, and the threads the App Server
// has loaded, straight from the App Server.
func ObserveNative(t testing.TB, th *Host, id string) NativeState {
	t.Helper()
	ctx := context.Background()
	c, err := th.Native().Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	thr, err := c.ThreadRead(ctx, id)
	if err != nil || thr.Path == nil {
		t.Fatalf("thread/read %s: %+v %v", id, thr, err)
	}
	b, err := os.ReadFile(*thr.Path)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := c.ThreadLoadedList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(loaded.Data)
	return NativeState{Rollout: b, Status: thr.Status.Type, Loaded: loaded.Data}
}

// Equal says whether s and o are the same state.
func (s NativeState) Equal(o NativeState) bool {
	return string(s.Rollout) == string(o.Rollout) && s.Status == o.Status && slices.Equal(s.Loaded, o.Loaded)
}
