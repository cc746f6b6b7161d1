package threads_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/store"
)

// Scenario: S000-18
func TestS000_18_ChildDelegatingAddsARelationAndKeepsTheOld(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "root", Cwd: cwd})
	child := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "shell", Task: "child", Cwd: cwd})
	hosttest.WaitStopped(t, c, child.Thread.ID)

	rawDelegation := func(id string) string {
		t.Helper()
		var raw []byte
		err := th.Store().View(func(tx *store.Tx) error {
			var err error
			raw, err = tx.GetRaw(store.PrefixDelegation, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	hosttest.Eventually(t, "the child's delegation to complete", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted
	})
	before := rawDelegation(child.DelegationID)

	// The child delegates, and its child does too: depth never refuses a delegation.
	grand := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: child.Thread.ID}, Harness: "shell", Task: "grandchild", Cwd: cwd})
	if grand.DelegationID == "" || grand.DelegationID == child.DelegationID || grand.Existing {
		t.Fatalf("grandchild delegation %q (child's %q)", grand.DelegationID, child.DelegationID)
	}
	chain := grand
	for i := range 5 {
		chain = hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: chain.Thread.ID}, Harness: "shell", Task: fmt.Sprintf("level %d", i+3), Cwd: cwd})
	}
	for _, id := range []string{grand.Thread.ID, chain.Thread.ID} {
		hosttest.WaitStopped(t, c, id)
	}
	hosttest.Eventually(t, "the grandchild's delegation to complete", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(grand.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted
	})

	d, err := th.Store().DelegationOfChild(model.ThreadID(grand.Thread.ID))
	if err != nil || d.ID != grand.DelegationID || d.ParentThread != model.ThreadID(child.Thread.ID) || d.ChildThread != model.ThreadID(grand.Thread.ID) || d.ParentHarness != "shell" || d.TargetHarness != "shell" {
		t.Fatalf("new delegation %+v (%v)", d, err)
	}
	if after := rawDelegation(child.DelegationID); after != before {
		t.Fatalf("the existing delegation was rewritten:\nbefore %s\nafter  %s", before, after)
	}
	for parentID, want := range map[string][]string{parent.Thread.ID: {child.Thread.ID}, child.Thread.ID: {grand.Thread.ID}} {
		kids, err := th.Store().ChildrenOf(model.ThreadID(parentID))
		if err != nil || !slices.Equal(strIDs(kids), want) {
			t.Fatalf("children of %s: %v (%v), want %v", parentID, kids, err, want)
		}
	}
}

// Scenario: S000-19
func TestS000_19_RestartBringsBackDelegationsOriginsAndRefs(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	parentTask := "parent task text 7c1e4b"
	childTask := "child task text 93d2aa"
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: parentTask, Refs: []string{refA}, Cwd: cwd})
	child := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "fail", Task: childTask, Refs: []string{refB}, RequestID: "restart-req", Cwd: cwd})
	hosttest.WaitStopped(t, c, parent.Thread.ID)
	hosttest.WaitStopped(t, c, child.Thread.ID)
	hosttest.Eventually(t, "the child's delegation to record its failure", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationFailed
	})

	snapshot := func(c *api.Client) map[string]string {
		out := map[string]string{}
		for _, id := range []string{parent.Thread.ID, child.Thread.ID} {
			out["read "+id] = string(hosttest.CallRaw(t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id}))
		}
		for name, p := range map[string]api.ThreadListParams{
			"parent": {Parent: parent.Thread.ID}, "client": {Client: "bot"}, "refA": {Ref: refA}, "refB": {Ref: refB},
		} {
			out["list "+name] = strings.Join(hosttest.ThreadIDs(hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, p).Threads), ",")
		}
		return out
	}
	before := snapshot(c)

	th.Restart()
	c, rt = th.Client("bot"), th.RuntimeClient()
	after := snapshot(c)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s after restart:\n%s\nbefore:\n%s", k, after[k], v)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	p, ch := hosttest.ReadThread(t, c, parent.Thread.ID).Thread, hosttest.ReadThread(t, c, child.Thread.ID).Thread
	if p.Origin == nil || p.Origin.Kind != model.OriginClient || p.Origin.Client != "bot" || !slices.Equal(p.Refs, []string{refA}) || p.Harness != "shell" {
		t.Fatalf("parent after restart: %+v origin %+v", p, p.Origin)
	}
	if ch.Origin == nil || ch.Origin.Kind != model.OriginThread || ch.Origin.ParentThread != parent.Thread.ID || ch.Origin.DelegationID != child.DelegationID ||
		!slices.Equal(ch.Refs, []string{refA, refB}) || ch.Harness != "fail" || ch.LastTurn == nil || ch.LastTurn.Status != model.TurnFailed {
		t.Fatalf("child after restart: %+v origin %+v", ch, ch.Origin)
	}
	if before["list parent"] != child.Thread.ID || before["list client"] != parent.Thread.ID || before["list refB"] != child.Thread.ID {
		t.Fatalf("lists before restart: %v", before)
	}
	d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
	if err != nil || d.ParentThread != model.ThreadID(parent.Thread.ID) || d.ParentHarness != "shell" || d.TargetHarness != "fail" || d.Status != model.DelegationFailed || d.RequestID != "restart-req" {
		t.Fatalf("delegation after restart: %+v (%v)", d, err)
	}
	// Idempotency survives too.
	again := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "fail", Task: childTask, RequestID: "restart-req", Cwd: cwd})
	if again.Thread.ID != child.Thread.ID || !again.Existing {
		t.Fatalf("request id after restart gave %s", again.Thread.ID)
	}

	// Records hold no conversation content: neither task text nor replies.
	th.Shutdown()
	for k, v := range hosttest.DumpStore(t, th.Home) {
		for _, s := range []string{parentTask, childTask, "7c1e4b", "93d2aa"} {
			if strings.Contains(k, s) || strings.Contains(v, s) {
				t.Fatalf("store record %q holds task text %q: %s", k, s, v)
			}
		}
	}
}

// Records carrying fields this build does not know, and record kinds under prefixes it does
// not know (as a newer build writes them), are read, used and rewritten without loss: the
// same rule that lets an older build keep the delegations a newer one wrote.
// Scenario: S000-20
func TestS000_20_RecordsOfANewerBuildSurviveUseAndRewrite(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent", Refs: []string{refA}, Cwd: cwd})
	child := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "shell", Task: "child", Cwd: cwd})
	hosttest.WaitStopped(t, c, child.Thread.ID)
	hosttest.Eventually(t, "the child's delegation to complete", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted
	})
	before, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
	if err != nil {
		t.Fatal(err)
	}
	th.Shutdown()

	// What a newer build adds: a field on each record kind, and a kind of its own.
	st, err := store.Open(th.Home, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys := [][2]string{{store.PrefixDelegation, child.DelegationID}, {store.PrefixOrigin, child.Thread.ID}, {store.PrefixThread, child.Thread.ID}}
	const future = `{"v":3,"kind":"unknown to this build"}`
	err = st.Update(func(tx *store.Tx) error {
		for _, k := range keys {
			raw, err := tx.GetRaw(k[0], k[1])
			if err != nil {
				return err
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return err
			}
			m["newerField"] = json.RawMessage(`{"n":1}`)
			if raw, err = json.Marshal(m); err != nil {
				return err
			}
			if err := tx.PutRaw(k[0], k[1], raw); err != nil {
				return err
			}
		}
		return tx.PutRaw("future", "rec-1", []byte(future))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	th.Restart() // after Shutdown, Restart only opens
	c = th.Client("bot")
	r := hosttest.ReadThread(t, c, child.Thread.ID)
	if r.Thread.Origin == nil || r.Thread.Origin.ParentThread != parent.Thread.ID || !slices.Equal(r.Thread.Refs, []string{refA}) {
		t.Fatalf("child read with newer fields: %+v", r.Thread)
	}
	if ids := hosttest.ThreadIDs(hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{Parent: parent.Thread.ID}).Threads); !slices.Equal(ids, []string{child.Thread.ID}) {
		t.Fatalf("--parent with newer fields: %v", ids)
	}
	// A new turn makes this build rewrite the delegation and thread records.
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: child.Thread.ID, Message: "again"})
	hosttest.WaitStopped(t, c, child.Thread.ID)
	hosttest.Eventually(t, "the delegation to be rewritten", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted && d.UpdatedAt.After(before.UpdatedAt)
	})
	th.Shutdown()

	dump := hosttest.DumpStore(t, th.Home)
	for _, k := range keys {
		if v := dump[k[0]+"/"+k[1]]; !strings.Contains(v, `"newerField":{"n":1}`) {
			t.Errorf("%s/%s lost the newer field: %s", k[0], k[1], v)
		}
	}
	if v := dump["future/rec-1"]; v != future {
		t.Errorf("the unknown record kind became %q", v)
	}
	var d model.Delegation
	if err := json.Unmarshal([]byte(dump[store.PrefixDelegation+"/"+child.DelegationID]), &d); err != nil || d.ParentThread != model.ThreadID(parent.Thread.ID) || d.Status != model.DelegationCompleted {
		t.Errorf("delegation after the rewrite: %+v (%v)", d, err)
	}
}

// A client added to config.toml while the runtime runs can connect without a restart, and is
// the origin of what it delegates.
func TestClientAddedWhileRunningConnectsAsThatClient(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{})
	cfg, err := config.Load(th.Home)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cfg.AddClient("late", config.Grant{})
	if err != nil {
		t.Fatal(err)
	}
	if err := config.Save(th.Home, cfg); err != nil {
		t.Fatal(err)
	}
	c := th.Dial(tok)
	if got := c.Caller(); got.Kind != api.CallerClient || got.Client != "late" {
		t.Fatalf("connected as %+v", got)
	}
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "from a late client", Cwd: t.TempDir()})
	if res.Thread.Origin == nil || res.Thread.Origin.Kind != model.OriginClient || res.Thread.Origin.Client != "late" {
		t.Fatalf("origin %+v", res.Thread.Origin)
	}
}
