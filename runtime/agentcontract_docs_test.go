package runtime

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// publicNames is the pinned field list (api.OutputShapes, golden in runtime/api) as owner →
// key → type, for checking documents.
func publicNames() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, s := range api.OutputShapes(append(append([]api.AgentOutput{}, api.AgentOutputs...), api.PinnedOutputs...)) {
		if out[s.Owner] == nil {
			out[s.Owner] = map[string]string{}
		}
		for _, f := range s.Fields {
			out[s.Owner][f.Name] = f.Type
		}
	}
	return out
}

// contractCheck walks printed documents against the pinned names and the status vocabulary.
type contractCheck struct {
	t     *testing.T
	names map[string]map[string]string
}

// doc checks the document command prints for res, and returns it decoded.
func (c contractCheck) doc(command string, res any) map[string]any {
	c.t.Helper()
	b, err := json.Marshal(api.AgentDocument(res))
	if err != nil {
		c.t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		c.t.Fatal(err)
	}
	for _, problem := range c.walk(command, command, doc) {
		c.t.Errorf("%s", problem)
	}
	if _, err := api.CompactDocument(res); err != nil {
		c.t.Errorf("%s --format compact: %v", command, err)
	}
	return doc
}

func (c contractCheck) walk(owner, path string, obj map[string]any) []string {
	keys, ok := c.names[owner]
	if !ok {
		return []string{path + ": " + owner + " has no pinned names"}
	}
	var problems []string
	for k, v := range obj {
		typ, ok := keys[k]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s.%s: not a pinned name of %s", path, k, owner))
			continue
		}
		if s, isString := v.(string); k == "status" && isString && !slices.Contains(model.PublicStatuses, s) {
			problems = append(problems, fmt.Sprintf("%s.status %q is not public vocabulary", path, s))
		}
		if s, isString := v.(string); k == "state" && isString && !slices.Contains([]string{api.WatchStateWatching, api.WatchStatePendingDelivery, api.WatchStateUndeliverable, "alreadyTerminal", model.WatchDelivered}, s) && owner != "MarkerRun" {
			problems = append(problems, fmt.Sprintf("%s.state %q is not a public watch state", path, s))
		}
		elem := strings.TrimSuffix(typ, "[]")
		if _, isObject := c.names[elem]; !isObject {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			problems = append(problems, c.walk(elem, path+"."+k, x)...)
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					problems = append(problems, c.walk(elem, path+"."+k+"[]", m)...)
				}
			}
		}
	}
	return problems
}

// Every kind of thread — external, native (the real App Server on the fake model), created
// by a marker block, continued from a stored session — reads through every agent-facing
// command with the pinned public names only, the public status words only, turn present
// (null before a first turn), and the configuration the thread actually runs with.
// Scenario: S000-14
func TestEveryThreadKindPrintsThePublicContract(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, operators: []string{"ops"}, harnesses: markerHarnesses()})
	c := th.client("ops")
	check := contractCheck{t: t, names: publicNames()}
	cwd := gitRepo(t, t.TempDir(), true)

	// Watched from the start: the watch record is in the document, and its notification
	// reaches client events.
	external := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "external", Cwd: cwd, Model: "small", Watch: true})
	if started := check.doc("delegate start", external); started["watch"] == nil {
		t.Errorf("delegate start --watch true printed no watch: %v", started)
	}
	native := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "native", Cwd: t.TempDir(), Thinking: "high"})
	check.doc("delegate start", native)
	m := &markerEnv{testHost: th, c: c, cwd: cwd}
	author := m.author(cwd, fence("task-create", `{"prompt": "created", "harness": "shell"}`))
	var created string
	eventually(t, "the marker-created thread", func() bool {
		for _, a := range m.markers(author).Audit {
			created = cmpOr(created, string(a.Created))
		}
		return created != ""
	})
	src, _ := codexfixture.StoredThread(t, th.codexHome, "", "an earlier question")
	cont := call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src})
	continued := cont.Thread.ID

	// Before its first send the continued thread has no turn: turn is null, not absent.
	pendingRead := check.doc("thread read", call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: continued}))
	if turn, present := pendingRead["turn"]; !present || turn != nil {
		t.Errorf("a thread with no turn: turn %v (present %v), want null", turn, present)
	}
	send := call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: continued, Message: "go on"})
	check.doc("thread send", send)

	kinds := map[string]string{"external": external.Thread.ID, "native": native.Thread.ID, "marker-created": created, "continued": continued}
	for kind, id := range kinds {
		waited := check.doc("thread wait", waitStopped(t, c, id))
		if waited["status"] != model.StatusCompleted {
			t.Errorf("%s thread %s: wait says %v, want completed", kind, id, waited["status"])
		}
		read := check.doc("thread read", call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id}))
		check.doc("thread read", call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id, View: model.ViewMessages}))
		check.doc("thread cancel", call[api.ThreadCancelResult](t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: id, IdleOK: true}))
		check.doc("thread watch", call[api.WatchResult](t, c, api.MethodThreadWatch, api.ThreadWatchParams{Thread: id, Notify: "client:ops"}))
		check.doc("thread markers", call[api.ThreadMarkersResult](t, c, api.MethodThreadMarkers, api.ThreadMarkersParams{Thread: id}))
		check.doc("lineage", call[api.ThreadLineageResult](t, c, api.MethodThreadLineage, api.ThreadLineageParams{Thread: id}))
		thread, _ := read["thread"].(map[string]any)
		if _, present := thread["configuration"]; !present {
			t.Errorf("%s thread: no configuration in %v", kind, thread)
		}
		if kind == "native" || kind == "continued" {
			// What the App Server reports the thread runs: the Codex home's model.
			// harness inspect's defaultModel is the model list's default, which this home overrides.
			if conf, _ := thread["configuration"].(map[string]any); conf["model"] != "mock-model" {
				t.Errorf("%s thread's configuration %v, want the App Server's mock-model", kind, conf)
			}
		}
		if conf, _ := thread["configuration"].(map[string]any); kind == "native" && conf["thinking"] != "high" {
			t.Errorf("native thread's configuration %v, want the thinking it was started with (high), as the App Server reports it", conf)
		}
	}
	list := check.doc("thread list", call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true, Limit: 100}))
	listed := map[string]bool{}
	for _, e := range list["threads"].([]any) {
		listed[e.(map[string]any)["threadId"].(string)] = true
	}
	for kind, id := range kinds {
		if !listed[id] {
			t.Errorf("the %s thread %s is not listed", kind, id)
		}
	}
	check.doc("thread list", call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true, Parent: author}))
	check.doc("thread watches", call[api.WatchesResult](t, c, api.MethodThreadWatches, nil))
	check.doc("harness list", call[api.HarnessListResult](t, c, api.MethodHarnessList, nil))
	var events []model.ClientEvent
	eventually(t, "the external thread's stop in client events", func() bool {
		events = call[api.ClientEventsResult](t, c, api.MethodClientEvents, api.ClientEventsParams{Limit: 100}).Events
		return slices.ContainsFunc(events, func(e model.ClientEvent) bool { return string(e.Thread) == external.Thread.ID })
	})
	for _, e := range events {
		check.doc("client events", e)
	}
	for _, h := range []string{"codex", "shell"} {
		check.doc("harness inspect", call[api.HarnessInspectResult](t, c, api.MethodHarnessInspect, api.HarnessInspectParams{Harness: h}))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// A running native turn reports its progress from the App Server's items (counts only); an
// ended turn reports none.
func TestRunningNativeTurnReportsProgress(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, operators: []string{"ops"}})
	c := th.client("ops")
	id := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "[[mode:shell]] [[cmd:sleep 4]]", Cwd: t.TempDir()}).Thread.ID
	var seen *model.TurnProgress
	eventually(t, "progress of the running turn", func() bool {
		rd := call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id})
		if rd.Status == model.StatusRunning && rd.Progress != nil && rd.Progress.Commands > 0 {
			seen = rd.Progress
		}
		return seen != nil || rd.Status != model.StatusRunning
	})
	if seen == nil || seen.Items == 0 || seen.Commands != 1 {
		t.Fatalf("progress while the command ran: %+v", seen)
	}
	if done := waitStopped(t, c, id); done.Progress != nil || done.Status != model.StatusCompleted {
		t.Fatalf("an ended turn: status %s, progress %+v", done.Status, done.Progress)
	}
}
