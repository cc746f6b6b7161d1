package api

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Sample documents of every command that takes --format compact, built from fixed values so
// that their compact forms can be golden files (testdata/compact/*.json; -update rewrites).
const (
	sampleThread = "019a0000-0000-7000-8000-0000000000a1"
	sampleParent = "019a0000-0000-7000-8000-0000000000b2"
	sampleTurn   = "019a0000-0000-7000-8000-0000000000c3"
)

var sampleAt = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

func sampleInfo(status string, last *model.TurnSummary, refs ...string) model.ThreadInfo {
	id := model.ThreadID(sampleThread)
	info := model.ThreadInfo{ID: sampleThread, Link: id.Link(), Harness: "shell", Status: status, Title: "fix the flaky test", Cwd: "/src/app",
		Model: "small", Configuration: model.NewConfiguration("small", "high"), CreatedAt: sampleAt, UpdatedAt: sampleAt.Add(time.Minute), LastTurn: last,
		Origin: &model.OriginView{Kind: model.OriginThread, ParentThread: sampleParent, DelegationID: "019a0000-0000-7000-8000-0000000000d4"}, Refs: append([]string{}, refs...)}
	info.SetPublic()
	return info
}

func sampleWatch(state string) model.Watch {
	return model.Watch{V: 1, ID: "019a0000-0000-7000-8000-0000000000e5", Thread: sampleThread, Notify: sampleParent, State: state,
		RegisteredAt: sampleAt, Deadline: sampleAt.Add(30 * time.Minute), UpdatedAt: sampleAt, Result: map[bool]string{true: model.ResultCompleted}[state != model.WatchWatching],
		SourceTurn: map[bool]string{true: sampleTurn}[state != model.WatchWatching]}
}

func compactSamples() map[string]any {
	running := &model.TurnSummary{ID: sampleTurn, Status: model.StatusRunning, StartedAt: &sampleAt}
	done := &model.TurnSummary{ID: sampleTurn, Status: model.TurnCompleted, StartedAt: &sampleAt, CompletedAt: &sampleAt}
	result := &model.Result{TurnID: sampleTurn, Status: model.TurnCompleted, Text: "done", Availability: model.ResultAvailable}
	read := func(info model.ThreadInfo) ThreadReadResult {
		return ThreadReadResult{ThreadID: info.ID, HarnessID: info.Harness, Status: info.RunStatus, Turn: &TurnRef{TurnID: sampleTurn, Status: info.RunStatus}, Thread: info, Result: result}
	}
	timedOut := false
	wait := read(sampleInfo(model.ThreadIdle, done))
	wait.TimedOut = &timedOut
	messages := read(sampleInfo(model.ThreadIdle, done))
	messages.Result = nil
	messages.Messages = []model.Message{{ID: sampleTurn + "/0", Role: model.RoleUser, Text: "fix it", TurnID: sampleTurn, At: sampleAt}, {ID: sampleTurn + "/1", Role: model.RoleAssistant, Text: "done", TurnID: sampleTurn}}
	watching := sampleWatch(model.WatchWatching)
	pending := sampleWatch(model.WatchDelivering)
	start := DelegateStartResult{DelegationID: "019a0000-0000-7000-8000-0000000000d4", ThreadID: sampleThread, TurnID: sampleTurn, HarnessID: "shell",
		DeepLink: model.ThreadID(sampleThread).Link(), Status: model.StatusRunning, Cwd: "/src/app", ParentThreadID: sampleParent,
		Next: NewNext("/opt/code host/codexhost", sampleThread), Thread: sampleInfo(model.ThreadActive, running, "https://example.com/issues/12"),
		Watch: &WatchResult{ThreadID: sampleThread, NotifyThreadID: sampleParent, State: WatchStateWatching, Status: model.StatusRunning, TimeoutMs: 1800000, Watch: &watching}}
	return map[string]any{
		"delegate-start":        start,
		"thread-read":           read(sampleInfo(model.ThreadNotLoaded, done, "https://example.com/issues/12")),
		"thread-read-messages":  messages,
		"thread-wait":           wait,
		"thread-list":           ThreadListResult{Threads: []model.ThreadInfo{sampleInfo(model.ThreadIdle, done), sampleInfo(model.ThreadActive, running, "https://example.com/a")}},
		"thread-send":           ThreadSendResult{ThreadID: sampleThread, TurnID: sampleTurn, HarnessID: "shell", Status: model.StatusRunning, Next: NewNext("codexhost", sampleThread), Thread: sampleInfo(model.ThreadActive, running)},
		"thread-cancel":         ThreadCancelResult{ThreadID: sampleThread, HarnessID: "shell", Cancelled: false, Thread: sampleInfo(model.ThreadIdle, done)},
		"thread-watch":          WatchResult{ThreadID: sampleThread, NotifyThreadID: "client:ci-bot", State: WatchStateWatching, Status: model.StatusRunning, TimeoutMs: 1800000, Watch: &watching},
		"thread-watch-terminal": WatchResult{ThreadID: sampleThread, State: "alreadyTerminal", Status: model.StatusCompleted, SourceTurn: sampleTurn},
		"thread-watches":        WatchesResult{Watches: []WatchEntry{PublicWatch(watching), PublicWatch(pending)}, Watching: []model.Watch{watching}, Pending: []model.Watch{pending}, Undeliverable: []model.Watch{}},
		"thread-watches-empty":  WatchesResult{Watches: []WatchEntry{}, Watching: []model.Watch{}, Pending: []model.Watch{}, Undeliverable: []model.Watch{}},
		"client-whoami":         WhoamiResult{Kind: "client", Client: "ci-bot", Version: "1.4.0"},
		"client-whoami-agent":   WhoamiResult{Kind: "runtime", Version: "1.4.0"},
		"harness-list":          HarnessListResult{IDs: []string{"codex", "shell"}, Harnesses: []HarnessInfo{{Name: "codex", Kind: "native"}, {Name: "shell", Kind: "external"}}},
		"harness-inspect": HarnessInspectResult{HarnessID: "shell", Kind: "external", Source: "config", Models: []HarnessModel{{ID: "small", Label: "Small", Thinking: []string{"low", "high"}, DefaultThinking: "low", IsDefault: true}},
			DefaultModel: "small", Thinking: []string{"low", "high"}, DefaultThinking: "low", Capabilities: []string{CapabilityModels, CapabilityThinking, CapabilityRead}},
		"thread-markers": ThreadMarkersResult{Thread: sampleThread, Link: model.ThreadID(sampleThread).Link(), Audit: []model.MarkerAudit{{V: 1, ID: "a1", Author: sampleThread, Turn: sampleTurn, Seq: 1,
			Tool: model.MarkerTool("task-create"), Info: "task-create", Created: sampleParent, Decision: "accepted", ParsedAt: sampleAt, DecidedAt: sampleAt}}, Running: []model.MarkerRun{}},
	}
}

// --format compact is what the manual's COMPACT section says: a thread is its link (the
// Thread object under thread too), no ids beside links, no timestamps, no record versions,
// no empty values; false and 0 stay. One golden file per command's document.
// Scenario: S000-14
func TestCompactFormIsWhatTheManualSays(t *testing.T) {
	for name, v := range compactSamples() {
		t.Run(name, func(t *testing.T) {
			doc, err := CompactDocument(v)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckCompact(doc); err != nil {
				t.Errorf("%v:\n%s", err, b)
			}
			golden(t, filepath.Join("compact", name+".json"), string(b)+"\n")
		})
	}
}

// The compact form of an object that names a thread keeps the facts: the link, and the
// public status and harness at the top.
func TestCompactThreadIsItsLink(t *testing.T) {
	doc, err := CompactDocument(compactSamples()["thread-read"])
	if err != nil {
		t.Fatal(err)
	}
	m := doc.(map[string]any)
	if m["thread"] != "codex://threads/"+sampleThread || m["status"] != model.StatusCompleted || m["harnessId"] != "shell" || m["threadId"] != nil {
		t.Errorf("compact thread read: %v", m)
	}
	b, _ := json.Marshal(doc)
	if strings.Contains(string(b), "2026-12-02") {
		t.Errorf("a timestamp in %s", b)
	}
}
