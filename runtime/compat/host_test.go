package compat_test

import (
	"context"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
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
	id = string(hosttest.StartNative(t, th, hosttest.SlowTask))
	hosttest.Eventually(t, "the App Server to report "+id+" active", func() bool {
		return hosttest.ObserveNative(t, th, id).Status == appserver.StatusActive
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
	id := string(hosttest.StartNative(t, th, text))
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
