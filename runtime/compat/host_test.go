package compat_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// agentPolicy is the [supervision] table of the tests where agents may use every compat tool.
var agentPolicy = config.CompatTools{Enabled: true, AllowRawTranscripts: true, AllowWriteControls: true}

// newCompatHost is a test host whose config.toml has the given [supervision] table and extra
// Codex homes. The table is written before the first runtime call, then the runtime restarts
// on it, as an operator editing config.toml would.
func newCompatHost(t *testing.T, ho hosttest.Options, sup config.CompatTools, extraHomes ...string) *hosttest.Host {
	t.Helper()
	th := hosttest.New(t, ho)
	cfg, err := config.Load(th.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CompatTools = sup
	cfg.Catalog.CodexHomes = extraHomes
	if err := config.Save(th.Home, cfg); err != nil {
		t.Fatal(err)
	}
	th.Restart()
	return th
}

// turnsOf lists a thread's turns in the host's App Server, newest first.
func turnsOf(t *testing.T, th *hosttest.Host, id string) []appserver.Turn {
	t.Helper()
	ctx := context.Background()
	c, err := th.Native().Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.TurnsList(ctx, appserver.TurnsListParams{ThreadID: id, Limit: 50, ItemsView: "full"})
	if err != nil {
		t.Fatalf("thread/turns/list %s: %v", id, err)
	}
	return res.Data
}

// loadedIDs lists the threads loaded in the host's App Server.
func loadedIDs(t *testing.T, th *hosttest.Host) []string {
	t.Helper()
	ctx := context.Background()
	c, err := th.Native().Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ThreadLoadedList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res.Data
}

// startRunning starts a slow native turn and waits until the App Server reports it active.
func startRunning(t *testing.T, th *hosttest.Host) (id, turn string) {
	t.Helper()
	id = string(startNative(t, th, slowTask))
	hosttest.Eventually(t, "the App Server to report "+id+" active", func() bool {
		return observeNative(t, th, id).status == appserver.StatusActive
	})
	turns := turnsOf(t, th, id)
	if len(turns) != 1 || turns[0].Status != appserver.TurnInProgress {
		t.Fatalf("the slow turn of %s: %+v", id, turns)
	}
	return id, turns[0].ID
}

// startIdle runs one completed native turn and waits until it has stopped.
func startIdle(t *testing.T, th *hosttest.Host, c *api.Client, text string) string {
	t.Helper()
	id := string(startNative(t, th, text))
	hosttest.WaitStopped(t, c, id)
	return id
}

func compatIDs(ss []api.CompatSession, loaded bool) []string {
	var out []string
	for _, s := range ss {
		if s.Loaded == loaded {
			out = append(out, s.ID)
		}
	}
	return out
}

// localList is gateway:local's part of a compat list, which must have no error.
func localList(t *testing.T, res api.CompatSessionsListResult) api.CompatEndpointSessions {
	t.Helper()
	for _, ep := range res.Endpoints {
		if ep.Endpoint == catalog.LocalHostID {
			if ep.Error != nil {
				t.Fatalf("gateway:local failed: %v", ep.Error)
			}
			return ep
		}
	}
	t.Fatalf("no gateway:local in %+v", res)
	return api.CompatEndpointSessions{}
}

// slowTask makes the fake model stream for a minute, so the turn stays active until cancelled.
const slowTask = "[[mode:slow]] [[delay:0.2]] [[duration:60]] keep going"

// startNative starts a thread and a turn on the native harness directly (no delegation) and
// waits until Codex lists the turn, so the thread is on disk before the API reads it.
func startNative(t *testing.T, th *hosttest.Host, text string) model.ThreadID {
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
	hosttest.Eventually(t, "Codex to persist the first turn of "+string(id), func() bool {
		res, err := c.TurnsList(ctx, appserver.TurnsListParams{ThreadID: string(id), Limit: 1})
		return err == nil && len(res.Data) == 1
	})
	return id
}

// nativeState is what reading a native thread must leave as it was.
type nativeState struct {
	rollout []byte
	status  string
	loaded  []string
}

func observeNative(t *testing.T, th *hosttest.Host, id string) nativeState {
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
	return nativeState{rollout: b, status: thr.Status.Type, loaded: loaded.Data}
}

// localHealth is the health of gateway:local as the catalog reports it.
func localHealth(t *testing.T, c *api.Client) string {
	t.Helper()
	for _, h := range hosttest.Call[api.CatalogHostsResult](t, c, api.MethodCatalogHosts, struct{}{}).Hosts {
		if h.ID == catalog.LocalHostID {
			return h.Health.State
		}
	}
	t.Fatal("no gateway:local host")
	return ""
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
