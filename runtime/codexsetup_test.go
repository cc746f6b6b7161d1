package runtime

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
)

// stoppedClock is a clock that moves only when told: a catalog backoff never runs out by
// itself, so only the install can end it.
type stoppedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stoppedClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// A runtime with no codex anywhere (CODEXHOST_CODEX_BIN unset, none on PATH) reports why and
// how to fix it; codex.install runs npm (a fake one that installs a link to the real pinned
// binary), streams its lines, and the App Server then starts without a restart: the catalog
// lists the home's stored session at once, its backoff ended by the install.
func TestCodexInstallStartsTheAppServerWithoutARestart(t *testing.T) {
	real := codextest.CodexBin(t)
	npm := codextest.NewFakeNPM(t, real, false)
	t.Setenv("PATH", npm.Dir+":/usr/bin:/bin") // the locator's PATH lookup: no codex there
	clock := &stoppedClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	th := newTestHost(t, hostOptions{codex: true, operators: []string{config.OperatorClient}, now: clock.now,
		environ: []string{"CODEXHOST_CODEX_BIN=", "PATH=" + npm.Dir + ":/usr/bin:/bin"}})
	stored, _ := codexfixture.StoredThread(t, th.codexHome, "", "hello from another client")
	op := th.dial(th.tokens[config.OperatorClient])
	ctx := context.Background()

	var before api.CatalogSessionsResult
	if err := op.Call(ctx, api.MethodCatalogSessions, api.CatalogSessionsParams{}, &before); err != nil {
		t.Fatal(err)
	}
	if len(before.Hosts) == 0 || before.Hosts[0].Error == nil || before.Hosts[0].Error.Code != model.CodeAppServerUnavailable {
		t.Fatalf("without codex the local host should fail: %+v", before)
	}
	var st api.CodexStatus
	if err := op.Call(ctx, api.MethodCodexStatus, nil, &st); err != nil {
		t.Fatal(err)
	}
	if st.Available || !st.CanInstall || st.Error == nil || !strings.Contains(st.Error.Message, "was not found") ||
		st.Error.Hint != appserver.FixHint(th.home) || st.InstallDir != appserver.HomeInstallDir(th.home) || st.PinnedVersion != appserver.PinnedVersion {
		t.Fatalf("status without codex: %+v", st)
	}

	var lines []string
	var res api.CodexInstallResult
	err := op.CallEvents(ctx, api.MethodCodexInstall, api.CodexInstallParams{Progress: true}, &res, func(ev api.Event) {
		if ev.Type == api.EventCodexInstall && ev.Install != nil {
			lines = append(lines, ev.Install.Line)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Started || res.StartError != nil || res.Version != appserver.PinnedVersion || !strings.HasPrefix(res.InstallDir, th.home) {
		t.Fatalf("install result %+v", res)
	}
	if len(lines) < 3 || !strings.Contains(strings.Join(lines, "\n"), "added 2 packages") {
		t.Fatalf("progress lines %q", lines)
	}

	var after api.CatalogSessionsResult
	if err := op.Call(ctx, api.MethodCatalogSessions, api.CatalogSessionsParams{Host: catalog.LocalHostID}, &after); err != nil {
		t.Fatal(err)
	}
	if len(after.Hosts) != 1 || after.Hosts[0].Error != nil || len(after.Hosts[0].Sessions) != 1 || after.Hosts[0].Sessions[0].ID != stored {
		t.Fatalf("after the install the stored session should list: %+v", after)
	}
	if err := op.Call(ctx, api.MethodCodexStatus, nil, &st); err != nil || !st.Available || st.CanInstall {
		t.Fatalf("status after the install: %+v %v", st, err)
	}
	// A second install has nothing to do, and says so before npm runs.
	if err := op.Call(ctx, api.MethodCodexInstall, api.CodexInstallParams{}, nil); !model.IsCode(err, model.CodeFailedPrecondition) ||
		!strings.Contains(err.Error(), "already available") {
		t.Fatalf("second install: %v", err)
	}
}
