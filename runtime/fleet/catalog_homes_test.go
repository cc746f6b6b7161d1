package fleet_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S003-01, S003-03 — a runtime with an extra Codex home in config.toml serves both
// homes as catalog hosts with opaque ids, lists threads of each without showing any path,
// and stops the extra home's App Server when it closes.
func TestCatalogServesExtraCodexHomesAndStopsTheirAppServers(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	extra := codextest.NewHome(t, th.Fake.URL())
	stored := hosttest.Stored(t, extra, "extra home thread")

	cfg, err := config.Load(th.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Catalog.CodexHomes = []string{extra, th.CodexHome} // the default home is not a second host
	if err := config.Save(th.Home, cfg); err != nil {
		t.Fatal(err)
	}
	th.Restart()
	c := th.Client("ops")
	xid := catalog.ExtraHostID(extra)

	hosts := hosttest.Call[api.CatalogHostsResult](t, c, api.MethodCatalogHosts, struct{}{})
	if len(hosts.Hosts) != 2 || hosts.Hosts[0].ID != catalog.LocalHostID || !hosts.Hosts[0].Default || hosts.Hosts[1].ID != xid {
		t.Fatalf("hosts %+v", hosts.Hosts)
	}
	for _, h := range hosts.Hosts {
		if !slices.Equal(h.Capabilities, []string{"list", "transcript", "continue", "archive"}) || h.Health.State != api.CatalogHealthUnknown {
			t.Fatalf("host %+v", h)
		}
	}

	native := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "hello catalog", Cwd: t.TempDir()})
	hosttest.WaitStopped(t, c, native.Thread.ID)
	raw := hosttest.CallRaw(t, c, api.MethodCatalogSessions, api.CatalogSessionsParams{})
	var res api.CatalogSessionsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Hosts) != 2 || res.Hosts[0].Error != nil || res.Hosts[1].Error != nil {
		t.Fatalf("sessions %s", raw)
	}
	if got := hosttest.CatalogIDs(res.Hosts[0].Sessions); !slices.Equal(got, []string{native.Thread.ID}) {
		t.Fatalf("local sessions %v", got)
	}
	if got := hosttest.CatalogIDs(res.Hosts[1].Sessions); !slices.Equal(got, []string{stored}) {
		t.Fatalf("extra sessions %v", got)
	}
	hostsRaw := hosttest.CallRaw(t, c, api.MethodCatalogHosts, struct{}{})
	// A thread codexhost starts is named in Codex after its task's first line, so the fleet
	// shows it; that title is the name, not a preview of the conversation.
	if s := res.Hosts[0].Sessions; len(s) != 1 || s[0].Title != "hello catalog" {
		t.Fatalf("the native thread's session %+v is not named after its task", s)
	}
	for _, leak := range []string{extra, th.CodexHome, "extra home thread", "rollout"} {
		if strings.Contains(string(raw)+string(hostsRaw), leak) {
			t.Fatalf("catalog output holds %q:\n%s\n%s", leak, raw, hostsRaw)
		}
	}
	tr := hosttest.Call[api.CatalogTranscriptResult](t, c, api.MethodCatalogTranscript, api.CatalogTranscriptParams{Host: xid, Thread: stored})
	if len(tr.Turns) != 1 || tr.Turns[0].Messages[0].Text != "extra home thread" {
		t.Fatalf("transcript %+v", tr)
	}

	// Processes the runtime started (agents) neither list the user's sessions, nor read
	// transcripts, nor archive: an agent acts within its thread's principal.
	rt := th.RuntimeClient()
	hosttest.CallErr(t, rt, api.MethodCatalogSessions, api.CatalogSessionsParams{Host: xid}, model.CodePermissionDenied)
	hosttest.CallErr(t, rt, api.MethodCatalogTranscript, api.CatalogTranscriptParams{Host: xid, Thread: stored}, model.CodePermissionDenied)
	hosttest.CallErr(t, rt, api.MethodCatalogArchive, api.CatalogArchiveParams{Host: xid, Thread: stored, ConfirmNoOtherRunner: true}, model.CodePermissionDenied)

	if len(hosttest.CodexProcesses(extra)) == 0 {
		t.Fatal("no App Server runs for the extra home")
	}
	th.Shutdown()
	if pids := hosttest.CodexProcesses(extra); len(pids) != 0 {
		t.Fatalf("the extra home's App Server outlived the runtime: %v", pids)
	}
}
