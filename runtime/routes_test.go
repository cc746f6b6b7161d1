package runtime

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// The callers of the permission table: one of each kind, and clients of each scope.
const (
	asAgent    = "agent"    // runtime token
	asBot      = "bot"      // client without scopes
	asReader   = "reader"   // operator.read, raw transcripts
	asWriter   = "writer"   // operator.write, write controls
	asAdmin    = "admin"    // operator.admin, both flags
	asNode     = "node"     // node token
	asOperator = "operator" // the home's operator client
)

var allCallers = []string{asAgent, asBot, asReader, asWriter, asAdmin, asNode, asOperator}

// permissionCase is one row of the table: a call and the callers it admits.
type permissionCase struct {
	method  string
	params  any
	allowed []string
}

var (
	notNode    = []string{asAgent, asBot, asReader, asWriter, asAdmin, asOperator}
	clientsAll = []string{asBot, asReader, asWriter, asAdmin, asOperator}
	listers    = []string{asAgent, asReader, asWriter, asAdmin, asOperator}
	readers    = []string{asReader, asWriter, asAdmin, asOperator}
	writers    = []string{asWriter, asAdmin, asOperator}
)

// permissionTable states who may call what. Every registered method has a row (checked
// below), so a method added to the routing table without a decision here fails the test.
func permissionTable() []permissionCase {
	missing := "019a0000-0000-7000-8000-00000000beef"
	return []permissionCase{
		{api.MethodEventsSubscribe, nil, notNode},
		{api.MethodRuntimeForward, api.ForwardParams{Caller: api.Caller{Kind: api.CallerClient, Client: asBot}, Method: api.MethodRuntimeInfo}, []string{asOperator}},
		{api.MethodRuntimeInfo, nil, notNode},
		{api.MethodHarnessList, nil, notNode},
		{api.MethodHarnessInspect, api.HarnessInspectParams{Harness: "shell"}, notNode},
		{api.MethodDelegateStart, api.DelegateStartParams{Harness: "shell", Task: "permission table", Cwd: os.TempDir()}, notNode},
		{api.MethodThreadRead, api.ThreadReadParams{Thread: missing}, notNode},
		{api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: missing}, TimeoutMs: api.WaitMs(1)}, notNode},
		{api.MethodThreadList, api.ThreadListParams{AnyCwd: true}, notNode},
		// An id no harness has is THREAD_NOT_FOUND for everyone (threads/principal.go); a
		// session codexhost did not start needs operator.write with write controls (scopes_test.go).
		{api.MethodThreadSend, api.ThreadSendParams{Thread: missing, Message: "hi"}, notNode},
		{api.MethodThreadCancel, api.ThreadCancelParams{Thread: missing}, notNode},
		{api.MethodThreadWatch, api.ThreadWatchParams{Thread: missing}, notNode},
		{api.MethodThreadWatches, nil, notNode},
		{api.MethodThreadMarkers, api.ThreadMarkersParams{Thread: missing}, notNode},
		{api.MethodMarkersPrune, api.MarkersPruneParams{DryRun: true}, writers},
		{api.MethodThreadLineage, api.ThreadLineageParams{Thread: missing}, notNode},
		{api.MethodThreadVisible, api.ThreadVisibleParams{Thread: missing}, notNode},
		// Every caller sums usage; what it sees is narrowed to its principal (usage_test.go).
		{api.MethodUsageSummary, api.UsageSummaryParams{By: api.UsageByTree}, notNode},
		{api.MethodClientEvents, api.ClientEventsParams{}, clientsAll},
		// Approvals are answered by people and clients, never by agents.
		{api.MethodApprovalList, api.ApprovalListParams{}, clientsAll},
		{api.MethodApprovalTake, api.ApprovalTakeParams{ID: "ap-none"}, clientsAll},
		{api.MethodApprovalAnswer, api.ApprovalAnswerParams{ID: "ap-none", Decision: "decline"}, clientsAll},
		{api.MethodCatalogHosts, nil, readers},
		{api.MethodCatalogSessions, api.CatalogSessionsParams{}, readers},
		{api.MethodCatalogTranscript, api.CatalogTranscriptParams{Thread: missing}, readers},
		{api.MethodCatalogArchive, api.CatalogArchiveParams{Thread: missing, ConfirmNoOtherRunner: true}, writers},
		{api.MethodCatalogContinue, api.CatalogContinueParams{Thread: missing}, writers},
		{api.MethodCompatEndpointProbe, api.CompatProbeParams{}, listers},
		{api.MethodCompatSessionsList, api.CompatSessionsListParams{}, listers},
		{api.MethodCompatSessionRead, api.CompatSessionReadParams{Thread: missing}, []string{asAgent, asReader, asAdmin, asOperator}},
		{api.MethodCompatSessionSend, api.CompatSessionSendParams{Thread: missing, Message: "hi"}, []string{asAgent, asWriter, asAdmin, asOperator}},
		{api.MethodCompatSessionInterrupt, api.CompatSessionInterruptParams{Thread: missing}, []string{asAgent, asWriter, asAdmin, asOperator}},
		{api.MethodHandoffCreate, api.HandoffCreateParams{}, notNode},
		{api.MethodHandoffList, api.HandoffListParams{}, notNode},
		{api.MethodHandoffShow, api.HandoffShowParams{}, notNode},
		{api.MethodTaskStart, api.TaskStartParams{}, notNode},
		{api.MethodTaskStatus, api.TaskStatusParams{}, notNode},
		{api.MethodTaskResult, api.TaskResultParams{}, notNode},
		{api.MethodTaskCancel, api.TaskCancelParams{}, notNode},
		{api.MethodTaskConfirm, api.TaskConfirmParams{}, []string{asOperator}},
		{api.MethodSkillRoute, api.SkillRouteParams{Task: "permission table"}, notNode},
		{api.MethodSkillRead, api.SkillReadParams{Skill: "none"}, notNode},
		{api.MethodSkillBundle, api.SkillBundleParams{Skill: "none"}, notNode},
		{api.MethodStoreBackup, api.StoreBackupParams{Path: "relative"}, []string{asOperator}},
		{api.MethodCodexStatus, nil, []string{asOperator}},
		// The host names a codex binary, so the operator's install is refused before npm runs.
		{api.MethodCodexInstall, api.CodexInstallParams{}, []string{asOperator}},
		{api.MethodNodeDescribe, nil, []string{asNode}},
		{api.MethodNodeInvoke, api.NodeInvokeParams{Command: "no.such.command"}, []string{asNode}},
	}
}

// escalations are rows whose parameters call for more than the method's own policy.
func escalations() []permissionCase {
	return []permissionCase{
		{api.MethodCatalogContinue, api.CatalogContinueParams{Thread: "019a0000-0000-7000-8000-00000000beef", Host: "node:lab"}, []string{asAdmin, asOperator}},
		{api.MethodThreadWatch, api.ThreadWatchParams{Thread: "019a0000-0000-7000-8000-00000000beef", Notify: "client:" + asBot}, []string{asBot}},
		{api.MethodTaskStart, api.TaskStartParams{ConfirmHighRisk: true}, []string{asOperator}},
	}
}

// newPermissionHost is a host with one client of each grant, a node token, the operator
// client, the compat tools open to agents, and a codex binary that records every start: a
// call that reaches the App Server leaves a line in the returned log.
func newPermissionHost(t *testing.T) (*testHost, string) {
	spyDir := t.TempDir()
	spyLog := filepath.Join(spyDir, "starts.log")
	spy := filepath.Join(spyDir, "codex")
	if err := os.WriteFile(spy, []byte("#!/bin/sh\necho \"$@\" >> "+spyLog+"\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	th := newTestHost(t, hostOptions{environ: []string{"CODEXHOST_CODEX_BIN=" + spy}, grants: map[string]config.Grant{
		asBot:    {},
		asReader: {Scopes: []string{config.ScopeRead}, AllowRawTranscripts: true},
		asWriter: {Scopes: []string{config.ScopeWrite}, AllowWriteControls: true},
		asAdmin:  {Scopes: []string{config.ScopeAdmin}, AllowRawTranscripts: true, AllowWriteControls: true},
	}, operators: []string{config.OperatorClient}})
	cfg, err := config.Load(th.home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CompatTools = config.CompatTools{Enabled: true, AllowRawTranscripts: true, AllowWriteControls: true}
	nodeToken, err := cfg.AddNodeClient("gw")
	if err != nil {
		t.Fatal(err)
	}
	if err := config.Save(th.home, cfg); err != nil {
		t.Fatal(err)
	}
	th.tokens[asNode] = nodeToken
	th.tokens[asOperator] = th.tokens[config.OperatorClient]
	th.restart()
	return th, spyLog
}

func (th *testHost) as(who string) *api.Client {
	if who == asAgent {
		return th.runtimeClient()
	}
	return th.shared(th.tokens[who])
}

// Every registered method called by every kind of caller is either admitted or refused with
// PERMISSION_DENIED, as the table says, and the refused calls together leave no trace: no
// App Server start, no store write.
func TestRoutingTableAdmitsExactlyThePolicyAndRefusalsHaveNoSideEffects(t *testing.T) {
	t.Parallel()
	th, spyLog := newPermissionHost(t)
	rows := permissionTable()
	var methods []string
	for _, r := range rows {
		methods = append(methods, r.method)
	}
	if registered := th.routes.Methods(); !slices.Equal(registered, sortedUnique(methods)) {
		t.Fatalf("registered methods %v\ndiffer from the permission table %v: give every method a row", registered, sortedUnique(methods))
	}
	rows = append(rows, escalations()...)

	th.close()
	before := readStore(t, th.home)
	th.open()
	for _, r := range rows {
		for _, who := range allCallers {
			if slices.Contains(r.allowed, who) {
				continue
			}
			err := th.as(who).Call(context.Background(), r.method, r.params, nil)
			if !model.IsCode(err, model.CodePermissionDenied) {
				t.Errorf("%s by %s: want PERMISSION_DENIED, got %v", r.method, who, err)
			}
		}
	}
	th.close()
	if after := readStore(t, th.home); !maps.Equal(before, after) {
		t.Errorf("refused calls changed the store:\nbefore %v\nafter  %v", before, after)
	}
	if starts, err := os.ReadFile(spyLog); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused calls started the App Server: %q (%v)", starts, err)
	}
	th.open()

	for _, r := range rows {
		for _, who := range r.allowed {
			err := th.as(who).Call(context.Background(), r.method, r.params, nil)
			if model.IsCode(err, model.CodePermissionDenied) {
				t.Errorf("%s by %s: refused, want admitted: %v", r.method, who, err)
			}
		}
	}
	// The two probes see what admitted calls do, so their silence above means something.
	if _, err := os.Stat(spyLog); err != nil {
		t.Errorf("admitted catalog calls never started the App Server: %v", err)
	}
	th.close()
	if after := readStore(t, th.home); maps.Equal(before, after) {
		t.Error("admitted delegate.start left the store unchanged")
	}
}

// Bad input is refused in one place, before any handler: an unknown method, and malformed
// parameters of an admitted caller.
func TestRoutingTableRefusesUnknownMethodsAndMalformedParams(t *testing.T) {
	t.Parallel()
	th, _ := newPermissionHost(t)
	c := th.as(asOperator)
	err := c.Call(context.Background(), "thread.nosuch", nil, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeInvalidArgument {
		t.Fatalf("unknown method: %v", err)
	}
	for _, r := range permissionTable() {
		switch r.method {
		case api.MethodNodeDescribe, api.MethodNodeInvoke, api.MethodEventsSubscribe:
			continue // the operator is refused before decoding; the stream takes no parameters
		}
		if err := c.Call(context.Background(), r.method, []int{1}, nil); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("%s with malformed params: want INVALID_ARGUMENT, got %v", r.method, err)
		}
	}
}

func sortedUnique(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}
