package compat_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S003-23 (permissions) — every compat tool refused by the policy is
// PERMISSION_DENIED before the catalog is touched: the local host, whose App Server cannot
// start here, is never tried (its health stays unknown). Agents need [supervision] enabled,
// session read needs allowRawTranscripts and send/interrupt allowWriteControls; clients need
// operator.read (operator.write for send/interrupt) and their own flags.
func TestS003_23_CompatToolsAreRefusedByPolicyBeforeAnyAppServerCall(t *testing.T) {
	t.Parallel()
	grants := map[string]config.Grant{
		"bot":    {},
		"reader": {Scopes: []string{config.ScopeRead}, AllowRawTranscripts: true, AllowWriteControls: true},
		"lister": {Scopes: []string{config.ScopeWrite}},
		"ops":    config.OperatorGrant(),
	}
	thread := "019a0000-0000-7000-8000-000000000001"
	probe, list := api.CompatProbeParams{}, api.CompatSessionsListParams{IncludeStored: true}
	read := api.CompatSessionReadParams{Thread: thread}
	send := api.CompatSessionSendParams{Thread: thread, Message: "hello", Mode: api.CompatModeSteer}
	interrupt := api.CompatSessionInterruptParams{Thread: thread}
	type attempt struct {
		who, method string
		params      any
		hint        string // a part of the hint naming the fix
	}

	off := newCompatHost(t, hosttest.Options{Grants: grants}, config.CompatTools{})
	for _, a := range []attempt{
		{"runtime", api.MethodCompatEndpointProbe, probe, "enabled = true under [supervision]"},
		{"runtime", api.MethodCompatSessionsList, list, "enabled = true under [supervision]"},
		{"runtime", api.MethodCompatSessionRead, read, "enabled = true under [supervision]"},
		{"runtime", api.MethodCompatSessionSend, send, "enabled = true under [supervision]"},
		{"runtime", api.MethodCompatSessionInterrupt, interrupt, "enabled = true under [supervision]"},
		{"bot", api.MethodCompatEndpointProbe, probe, "operator.read"},
		{"bot", api.MethodCompatSessionsList, list, "operator.read"},
		{"reader", api.MethodCompatSessionSend, send, "operator.write"},
		{"reader", api.MethodCompatSessionInterrupt, interrupt, "operator.write"},
		{"lister", api.MethodCompatSessionRead, read, "allowRawTranscripts = true under [clients.lister]"},
		{"lister", api.MethodCompatSessionSend, send, "allowWriteControls = true under [clients.lister]"},
		{"lister", api.MethodCompatSessionInterrupt, interrupt, "allowWriteControls = true under [clients.lister]"},
	} {
		c := off.RuntimeClient()
		if a.who != "runtime" {
			c = off.Client(a.who)
		}
		if me := hosttest.CallErr(t, c, a.method, a.params, model.CodePermissionDenied); !strings.Contains(me.Hint, a.hint) {
			t.Errorf("%s %s: hint %q lacks %q", a.who, a.method, me.Hint, a.hint)
		}
	}
	if got := localHealth(t, off.Client("ops")); got != api.CatalogHealthUnknown {
		t.Fatalf("a refused call reached the App Server: health %s", got)
	}
	// A permitted call does try it (and fails here: there is no Codex).
	res := hosttest.Call[api.CompatSessionsListResult](t, off.Client("lister"), api.MethodCompatSessionsList, list)
	if len(res.Endpoints) != 1 || res.Endpoints[0].Error == nil || res.Endpoints[0].Error.Code != model.CodeAppServerUnavailable {
		t.Fatalf("permitted list: %+v", res)
	}
	if got := localHealth(t, off.Client("ops")); got != api.CatalogHealthError {
		t.Fatalf("the permitted list did not try the App Server: health %s", got)
	}

	// Enabled for agents, without the two controls: listing works, reading and writing do not.
	on := newCompatHost(t, hosttest.Options{Grants: grants}, config.CompatTools{Enabled: true})
	rt := on.RuntimeClient()
	for _, a := range []attempt{
		{"runtime", api.MethodCompatSessionRead, read, "allowRawTranscripts = true under [supervision]"},
		{"runtime", api.MethodCompatSessionSend, send, "allowWriteControls = true under [supervision]"},
		{"runtime", api.MethodCompatSessionInterrupt, interrupt, "allowWriteControls = true under [supervision]"},
	} {
		if me := hosttest.CallErr(t, rt, a.method, a.params, model.CodePermissionDenied); !strings.Contains(me.Hint, a.hint) {
			t.Errorf("%s: hint %q lacks %q", a.method, me.Hint, a.hint)
		}
	}
	if got := localHealth(t, on.Client("ops")); got != api.CatalogHealthUnknown {
		t.Fatalf("a refused call reached the App Server: health %s", got)
	}
	pr := hosttest.Call[api.CompatProbeResult](t, rt, api.MethodCompatEndpointProbe, probe)
	if len(pr.Endpoints) != 1 || pr.Endpoints[0].Endpoint != catalog.LocalHostID || pr.Endpoints[0].OK || pr.Endpoints[0].Error == nil {
		t.Fatalf("probe without Codex: %+v", pr)
	}
}

// Scenario: S003-23 — the compat list defaults to the sessions loaded in the endpoint's App
// Server; include_stored adds unarchived stored ones, at most max_stored_sessions per
// endpoint (the configured cap, or a per-call one from 1 to 1000), while loaded rows are
// never capped: three loaded sessions all show with a cap of two stored ones.
func TestS003_23_SessionsListDefaultsToLoadedAndCapsStoredRows(t *testing.T) {
	t.Parallel()
	sup := config.CompatTools{Enabled: true, MaxStoredSessions: 2}
	th := newCompatHost(t, hosttest.Options{Codex: true}, sup)
	var storedIDs []string
	for _, text := range []string{"stored one", "stored two", "stored three"} {
		storedIDs = append(storedIDs, hosttest.Stored(t, th.CodexHome, text))
	}
	rt := th.RuntimeClient()
	var loaded []string
	for _, text := range []string{"loaded one", "loaded two", "loaded three"} {
		loaded = append(loaded, startIdle(t, th, rt, text))
	}

	raw := hosttest.CallRaw(t, rt, api.MethodCompatSessionsList, api.CompatSessionsListParams{})
	var res api.CompatSessionsListResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	ep := localList(t, res)
	if !hosttest.SameSet(compatIDs(ep.Sessions, true), loaded) || len(compatIDs(ep.Sessions, false)) != 0 || ep.StoredCap != 0 {
		t.Fatalf("default list %s", raw)
	}
	for _, s := range ep.Sessions {
		if s.Status != model.ThreadIdle || s.Source == "" {
			t.Fatalf("loaded row %+v", s)
		}
	}
	// Without allowRawTranscripts no transcript-derived field is served.
	if strings.Contains(string(raw), "preview") || strings.Contains(string(raw), "loaded one") || res.RawTranscripts {
		t.Fatalf("a transcript field without allowRawTranscripts: %s", raw)
	}

	// The configured cap (2): the newest two stored sessions, and every loaded one.
	res = hosttest.Call[api.CompatSessionsListResult](t, rt, api.MethodCompatSessionsList, api.CompatSessionsListParams{IncludeStored: true})
	ep = localList(t, res)
	if got := compatIDs(ep.Sessions, false); !slices.Equal(got, []string{storedIDs[2], storedIDs[1]}) || !ep.StoredTruncated || ep.StoredCap != 2 {
		t.Fatalf("stored rows %v (truncated %v, cap %d), want the newest two of %v", got, ep.StoredTruncated, ep.StoredCap, storedIDs)
	}
	if got := compatIDs(ep.Sessions, true); !hosttest.SameSet(got, loaded) {
		t.Fatalf("loaded rows beyond the cap are missing: %v", got)
	}
	for i, s := range ep.Sessions {
		if s.Loaded != (i < len(loaded)) {
			t.Fatalf("loaded rows do not come first: %+v", ep.Sessions)
		}
	}

	// A per-call cap within range overrides it; one, too, still shows every loaded row.
	for _, n := range []int{1, 3, 1000} {
		res = hosttest.Call[api.CompatSessionsListResult](t, rt, api.MethodCompatSessionsList, api.CompatSessionsListParams{IncludeStored: true, MaxStoredSessions: &n})
		ep = localList(t, res)
		want := min(n, 3)
		if got := compatIDs(ep.Sessions, false); len(got) != want || ep.StoredTruncated != (n < 3) || !hosttest.SameSet(compatIDs(ep.Sessions, true), loaded) {
			t.Fatalf("cap %d: stored %v truncated %v loaded %v", n, got, ep.StoredTruncated, compatIDs(ep.Sessions, true))
		}
	}
	for _, n := range []int{0, -1, 1001} {
		hosttest.CallErr(t, rt, api.MethodCompatSessionsList, api.CompatSessionsListParams{IncludeStored: true, MaxStoredSessions: &n}, model.CodeInvalidArgument)
	}
	// There is no loaded_only parameter: loaded only is the default, and asking for it is an error.
	me := hosttest.CallErr(t, rt, api.MethodCompatSessionsList, map[string]any{"loaded_only": false}, model.CodeInvalidArgument)
	if !strings.Contains(me.Hint, "include_stored") {
		t.Fatalf("loaded_only: %v", me)
	}
	// Listing loaded nothing.
	if got := loadedIDs(t, th); !hosttest.SameSet(got, loaded) {
		t.Fatalf("listing loaded threads: %v, want %v", got, loaded)
	}
}

// Scenario: S003-23 — endpoints are the catalog's local hosts: gateway:local and each extra
// Codex home. The probe reaches each App Server; the extra home has nothing loaded, so its
// list is empty by default and shows its stored session with include_stored.
func TestS003_23_EndpointsAreTheLocalHosts(t *testing.T) {
	t.Parallel()
	extra := codextest.NewHome(t, fakemodel.Start(t).URL())
	xs := hosttest.Stored(t, extra, "extra stored")
	th := newCompatHost(t, hosttest.Options{Codex: true}, agentPolicy, extra)
	xid := catalog.ExtraHostID(extra)
	rt := th.RuntimeClient()
	loaded := startIdle(t, th, rt, "local loaded")

	raw := hosttest.CallRaw(t, rt, api.MethodCompatEndpointProbe, api.CompatProbeParams{})
	var pr api.CompatProbeResult
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatal(err)
	}
	if len(pr.Endpoints) != 2 || pr.Endpoints[0].Endpoint != catalog.LocalHostID || !pr.Endpoints[0].Default || pr.Endpoints[1].Endpoint != xid {
		t.Fatalf("probe %s", raw)
	}
	for i, want := range []int{1, 0} {
		ep := pr.Endpoints[i]
		if !ep.OK || ep.Error != nil || ep.LoadedSessions == nil || *ep.LoadedSessions != want || ep.CodexVersion != appserver.PinnedVersion {
			t.Fatalf("endpoint %d: %s", i, raw)
		}
	}
	for _, leak := range []string{extra, th.CodexHome} {
		if strings.Contains(string(raw), leak) {
			t.Fatalf("the probe shows a Codex home path: %s", raw)
		}
	}
	one := hosttest.Call[api.CompatProbeResult](t, rt, api.MethodCompatEndpointProbe, api.CompatProbeParams{Endpoint: xid})
	if len(one.Endpoints) != 1 || one.Endpoints[0].Endpoint != xid {
		t.Fatalf("probe of one endpoint: %+v", one)
	}
	hosttest.CallErr(t, rt, api.MethodCompatEndpointProbe, api.CompatProbeParams{Endpoint: "gateway:nowhere"}, model.CodeInvalidArgument)
	hosttest.CallErr(t, rt, api.MethodCompatSessionsList, api.CompatSessionsListParams{Endpoint: "node:mac"}, model.CodeInvalidArgument)

	res := hosttest.Call[api.CompatSessionsListResult](t, rt, api.MethodCompatSessionsList, api.CompatSessionsListParams{})
	if len(res.Endpoints) != 2 || !slices.Equal(compatIDs(res.Endpoints[0].Sessions, true), []string{loaded}) || len(res.Endpoints[1].Sessions) != 0 || res.Endpoints[1].Error != nil {
		t.Fatalf("default list %+v", res)
	}
	res = hosttest.Call[api.CompatSessionsListResult](t, rt, api.MethodCompatSessionsList, api.CompatSessionsListParams{Endpoint: xid, IncludeStored: true})
	if len(res.Endpoints) != 1 || !slices.Equal(compatIDs(res.Endpoints[0].Sessions, false), []string{xs}) {
		t.Fatalf("extra endpoint with stored rows %+v", res)
	}
	if s := res.Endpoints[0].Sessions[0]; s.Preview != "extra stored" || s.Status != model.ThreadNotLoaded {
		t.Fatalf("stored row with allowRawTranscripts: %+v", s)
	}
}

// Scenario: S003-23 (allowRawTranscripts) — transcript-derived list fields and session read
// need allowRawTranscripts: an agent without it gets rows without previews and a refused
// read; a client with operator.read and the flag gets both.
func TestS003_23_TranscriptFieldsNeedAllowRawTranscripts(t *testing.T) {
	t.Parallel()
	grants := map[string]config.Grant{
		"reader": {Scopes: []string{config.ScopeRead}, AllowRawTranscripts: true},
		"plain":  {Scopes: []string{config.ScopeRead}},
	}
	th := newCompatHost(t, hosttest.Options{Codex: true, Grants: grants}, config.CompatTools{Enabled: true, AllowWriteControls: true})
	id := hosttest.Stored(t, th.CodexHome, "PREVIEW-SECRET first words")
	include := api.CompatSessionsListParams{IncludeStored: true}

	for _, c := range []*api.Client{th.RuntimeClient(), th.Client("plain")} {
		raw := hosttest.CallRaw(t, c, api.MethodCompatSessionsList, include)
		if !strings.Contains(string(raw), id) || strings.Contains(string(raw), "PREVIEW-SECRET") || strings.Contains(string(raw), `"preview"`) {
			t.Fatalf("list without allowRawTranscripts: %s", raw)
		}
		hosttest.CallErr(t, c, api.MethodCompatSessionRead, api.CompatSessionReadParams{Thread: id}, model.CodePermissionDenied)
	}

	r := th.Client("reader")
	res := hosttest.Call[api.CompatSessionsListResult](t, r, api.MethodCompatSessionsList, include)
	ep := localList(t, res)
	if !res.RawTranscripts || len(ep.Sessions) != 1 || ep.Sessions[0].Preview != "PREVIEW-SECRET first words" {
		t.Fatalf("list with allowRawTranscripts: %+v", res)
	}
	rd := hosttest.Call[api.CompatSessionReadResult](t, r, api.MethodCompatSessionRead, api.CompatSessionReadParams{Thread: "codex://threads/" + id})
	if rd.Session.ID != id || rd.Session.Loaded || rd.ActiveTurnID != "" || len(rd.Turns) != 1 || rd.Turns[0].Messages[0].Text != "PREVIEW-SECRET first words" {
		t.Fatalf("read %+v", rd)
	}
	hosttest.CallErr(t, r, api.MethodCompatSessionRead, api.CompatSessionReadParams{Thread: "019a0000-0000-7000-8000-00000000dead"}, model.CodeThreadNotFound)
	// Reading loaded nothing.
	if got := loadedIDs(t, th); slices.Contains(got, id) {
		t.Fatalf("reading loaded the thread: %v", got)
	}
}

// Scenario: S003-23 — compat send never starts or resumes an idle thread: on a loaded idle
// thread and on a stored one, modes auto and steer are refused and mode start always is; no
// turn is added and the stored thread is not loaded. Interrupt of an idle thread is refused
// the same way.
func TestS003_23_CompatSendNeverStartsOrResumesAnIdleThread(t *testing.T) {
	t.Parallel()
	th := newCompatHost(t, hosttest.Options{Codex: true}, agentPolicy)
	rt := th.RuntimeClient()
	storedID := hosttest.Stored(t, th.CodexHome, "stored idle")
	idle := startIdle(t, th, rt, "loaded idle")

	for _, id := range []string{idle, storedID} {
		before := turnsOf(t, th, id)
		for _, mode := range []string{"", api.CompatModeAuto, api.CompatModeSteer} {
			me := hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: id, Message: "do more", Mode: mode}, model.CodeFailedPrecondition)
			if !strings.Contains(me.Hint, "codexhost continue") {
				t.Fatalf("send %q to %s: %v", mode, id, me)
			}
		}
		me := hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: id, Message: "do more", Mode: api.CompatModeStart}, model.CodeInvalidArgument)
		if !strings.Contains(me.Message, "mode start") {
			t.Fatalf("mode start: %v", me)
		}
		hosttest.CallErr(t, rt, api.MethodCompatSessionInterrupt, api.CompatSessionInterruptParams{Thread: id}, model.CodeFailedPrecondition)
		after := turnsOf(t, th, id)
		if len(after) != len(before) || after[0].ID != before[0].ID || after[0].Status != appserver.TurnCompleted {
			t.Fatalf("thread %s changed: %d turns → %d (%+v)", id, len(before), len(after), after)
		}
	}
	if slices.Contains(loadedIDs(t, th), storedID) {
		t.Fatal("compat send resumed the stored thread")
	}
	if st := hosttest.ObserveNative(t, th, idle).Status; st != appserver.StatusIdle {
		t.Fatalf("the idle thread is %s", st)
	}
	hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: idle, Message: "x", Mode: "queue"}, model.CodeInvalidArgument)
	hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: idle, Message: "  "}, model.CodeInvalidArgument)
	hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: "019a0000-0000-7000-8000-00000000dead", Message: "x"}, model.CodeThreadNotFound)
}

// Scenario: S003-23 — compat send steers a readable running turn (turn/steer with its id):
// the message joins that turn, no turn is started, and mode start is refused even then.
func TestS003_23_CompatSendSteersTheRunningTurn(t *testing.T) {
	t.Parallel()
	th := newCompatHost(t, hosttest.Options{Codex: true}, agentPolicy)
	rt := th.RuntimeClient()
	id, turn := startRunning(t, th)

	rd := hosttest.Call[api.CompatSessionReadResult](t, rt, api.MethodCompatSessionRead, api.CompatSessionReadParams{Thread: id})
	if rd.ActiveTurnID != turn || !rd.Session.Loaded || rd.Session.Status != model.ThreadActive {
		t.Fatalf("read of the running session: %+v", rd)
	}
	hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: id, Message: "not this", Mode: api.CompatModeStart}, model.CodeInvalidArgument)
	me := hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: id, Message: "not this", ExpectedTurnID: "019a0000-0000-7000-8000-00000000beef"}, model.CodeFailedPrecondition)
	if me.Details["turnId"] != turn {
		t.Fatalf("wrong expected turn: %+v", me)
	}

	got := hosttest.Call[api.CompatSessionSendResult](t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: id, Message: "STEERED note", Mode: api.CompatModeSteer, ExpectedTurnID: turn})
	if got.TurnID != turn || !got.Steered || got.Endpoint != catalog.LocalHostID {
		t.Fatalf("send %+v, want turn %s", got, turn)
	}
	// The steer's own text has no slow marker, so the fake model answers it and the turn ends.
	hosttest.WaitStopped(t, rt, id)
	turns := turnsOf(t, th, id)
	if len(turns) != 1 || turns[0].ID != turn || turns[0].Status != appserver.TurnCompleted {
		t.Fatalf("turns after the steer: %+v", turns)
	}
	var users []string
	for _, it := range turns[0].Items {
		if it.Type == "userMessage" && len(it.Content) > 0 {
			users = append(users, it.Content[0].Text)
		}
	}
	if !slices.Equal(users, []string{hosttest.SlowTask, "STEERED note"}) {
		t.Fatalf("user messages of the steered turn: %q", users)
	}
	// Now idle: a further send is refused and changes nothing.
	hosttest.CallErr(t, rt, api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: id, Message: "again"}, model.CodeFailedPrecondition)
	if n := len(turnsOf(t, th, id)); n != 1 {
		t.Fatalf("%d turns after a refused send", n)
	}
}

// Scenario: S003-23 — compat interrupt stops a readable running turn (turn/interrupt), which
// ends interrupted; once the thread is idle, interrupt is refused.
func TestS003_23_CompatInterruptNeedsARunningTurn(t *testing.T) {
	t.Parallel()
	th := newCompatHost(t, hosttest.Options{Codex: true}, agentPolicy)
	rt := th.RuntimeClient()
	id, turn := startRunning(t, th)

	hosttest.CallErr(t, rt, api.MethodCompatSessionInterrupt, api.CompatSessionInterruptParams{Thread: id, ExpectedTurnID: "019a0000-0000-7000-8000-00000000beef"}, model.CodeFailedPrecondition)
	got := hosttest.Call[api.CompatSessionInterruptResult](t, rt, api.MethodCompatSessionInterrupt, api.CompatSessionInterruptParams{Thread: id})
	if got.TurnID != turn || !got.Interrupted {
		t.Fatalf("interrupt %+v, want turn %s", got, turn)
	}
	done := hosttest.WaitStopped(t, rt, id)
	if done.Thread.LastTurn == nil || done.Thread.LastTurn.ID != turn || done.Thread.LastTurn.Status != model.TurnInterrupted {
		t.Fatalf("after the interrupt: %+v", done.Thread.LastTurn)
	}
	hosttest.CallErr(t, rt, api.MethodCompatSessionInterrupt, api.CompatSessionInterruptParams{Thread: id}, model.CodeFailedPrecondition)
	if turns := turnsOf(t, th, id); len(turns) != 1 || turns[0].Status != appserver.TurnInterrupted {
		t.Fatalf("turns %+v", turns)
	}
}
