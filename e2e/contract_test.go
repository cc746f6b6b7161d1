package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
)

// The harnesses of the contract tests: one that answers at once, one that answers after a
// moment, one that runs until cancelled, one whose turns fail.
var contractHarnesses = map[string][]string{
	"echo":    echoHarness,
	"slow":    {"sh", "-c", "cat >/dev/null; sleep 2; echo slow answer"},
	"sleeper": {"sh", "-c", "cat >/dev/null; exec sleep 60"},
	"failer":  {"sh", "-c", "cat >/dev/null; echo broken >&2; exit 3"},
}

// echoModels declares models and thinking options of echo in config.toml, for harness inspect.
const echoModels = `
[[harnesses.echo.models]]
id = "small"
label = "Small model"
thinking = ["low", "high"]
default_thinking = "low"

[[harnesses.echo.models]]
id = "big"
thinking = ["high"]
`

// contractRun runs one CLI command as a client, checks the success contract, and records
// its output for the drift check under its command name.
type contractRun struct {
	h      *host
	tok    string
	drift  *drift
	byName map[string]int
}

func (c *contractRun) ok(args ...string) map[string]any {
	c.h.t.Helper()
	r := c.h.asClient(c.tok, args...)
	var doc map[string]any
	r.decode(c.h.t, &doc)
	if !slices.Contains(args, "compact") {
		name := args[0] + " " + args[1]
		c.drift.add(name, r.stdout)
		c.byName[name]++
	}
	return doc
}

func str(doc map[string]any, path ...string) string {
	var v any = doc
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

func obj(doc map[string]any, key string) map[string]any {
	m, _ := doc[key].(map[string]any)
	return m
}

// Every agent-facing command prints the public CodexHost fields beside codexhost's own, with
// the public status vocabulary, and the manual's OUTPUT FIELDS section, generated from the
// code, documents exactly the keys the commands emit: an emitted key the manual does not
// list, or a listed key no command emitted, fails.
// Scenario: S000-12
// Scenario: S000-14
func TestContractPublicFieldsAndManualDrift(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: contractHarnesses, config: echoModels})
	tok := h.addClient("ci")
	manual := run(t, h.work, []string{"HOME=" + h.cliHome}, "delegate", "--help")
	c := &contractRun{h: h, tok: tok, drift: newDrift(parseManualFields(t, manual.stdout)), byName: map[string]int{}}

	// delegate start by a client: a delegation id too, no parent.
	start := c.ok("delegate", "start", "--harness", "echo", "--task", "hello contract", "--ref", "https://example.com/issue/1", "--model", "small", "--thinking", "high")
	id := str(start, "threadId")
	if id == "" || str(start, "delegationId") == "" || str(start, "turnId") == "" || str(start, "harnessId") != "echo" ||
		str(start, "deepLink") != "codex://threads/"+id || str(start, "cwd") != h.work || start["parentThreadId"] != nil {
		t.Errorf("delegate start by a client: %v", start)
	}
	if st := str(start, "status"); st != "running" && st != "completed" {
		t.Errorf("delegate start status %q is not public vocabulary", st)
	}
	next := obj(start, "next")
	if str(next, "read") != bin+" thread read "+id || str(next, "wait") != bin+" thread wait "+id {
		t.Errorf("next commands %v do not use this CLI's path %s", next, bin)
	}
	again := c.ok("delegate", "start", "--harness", "echo", "--task", "hello contract", "--ref", "https://example.com/issue/1", "--model", "small", "--thinking", "high")
	if str(again, "threadId") != id || str(again, "delegationId") != str(start, "delegationId") || again["existing"] != true {
		t.Errorf("a repeated client start: %v, want thread %s and delegation %s", again, id, str(start, "delegationId"))
	}

	// wait and read: top-level public fields, turn, result availability.
	waited := c.ok("thread", "wait", id, "--timeout-ms", "20000")
	turn := obj(waited, "turn")
	res := obj(waited, "result")
	if str(waited, "threadId") != id || str(waited, "harnessId") != "echo" || str(waited, "status") != "completed" || waited["timedOut"] != false ||
		str(turn, "turnId") != str(start, "turnId") || str(turn, "status") != "completed" ||
		str(res, "availability") != "available" || str(res, "text") != "hello contract" {
		t.Errorf("thread wait: %v", waited)
	}
	// A client's start reads back its delegation id; the configuration is what ran.
	if th := obj(waited, "thread"); str(obj(th, "origin"), "delegationId") != str(start, "delegationId") ||
		str(obj(th, "configuration"), "model") != "small" || str(obj(th, "configuration"), "thinking") != "high" {
		t.Errorf("thread origin and configuration: %v", th)
	}
	if th := obj(waited, "thread"); str(th, "status") != "completed" || str(th, "loadState") != "idle" || str(th, "threadId") != id || str(th, "deepLink") == "" {
		t.Errorf("thread object: %v", th)
	}
	c.ok("thread", "wait", id, "--view", "messages", "--limit", "1")
	msgs := c.ok("thread", "read", id, "--view", "messages")
	list, _ := msgs["messages"].([]any)
	if len(list) != 2 || msgs["hasMore"] != false || msgs["nextCursor"] != nil {
		t.Fatalf("messages view: %v", msgs)
	}
	if _, present := msgs["nextCursor"]; !present {
		t.Error("the last page of messages has no nextCursor key (want null)")
	}
	for i, role := range []string{"user", "agent"} {
		m := list[i].(map[string]any)
		if str(m, "role") != role || str(m, "id") == "" || str(m, "turnId") != str(start, "turnId") || str(m, "text") != "hello contract" {
			t.Errorf("message %d: %v", i, m)
		}
	}
	if page := c.ok("thread", "read", id, "--view", "messages", "--limit", "1"); page["hasMore"] != true || str(page, "nextCursor") == "" {
		t.Errorf("a first page of one message: %v", page)
	}

	// A child of a thread: parentThreadId and the thread origin.
	child := c.ok("delegate", "start", "--harness", "echo", "--task", "child task", "--parent-thread", id)
	if str(child, "parentThreadId") != id || str(child, "delegationId") == "" {
		t.Errorf("child start: %v", child)
	}

	// Running, pending, failed, unavailable; send; cancel.
	sleeper := c.ok("delegate", "start", "--harness", "sleeper", "--task", "sleep", "--watch", "true")
	sid := str(sleeper, "threadId")
	if w := obj(sleeper, "watch"); str(w, "state") != "watching" || str(w, "threadId") != sid || str(w, "notifyThreadId") != "client:ci" || w["timeoutMs"] != float64(30*60*1000) || str(w, "status") != "running" {
		t.Errorf("delegate start --watch true: %v", w)
	}
	if rd := c.ok("thread", "read", sid); str(rd, "status") != "running" || str(obj(rd, "result"), "availability") != "pending" || str(obj(rd, "turn"), "status") != "running" {
		t.Errorf("a running thread reads %v", rd)
	}
	failer := c.ok("delegate", "start", "--harness", "failer", "--task", "fail")
	failed := c.ok("thread", "wait", str(failer, "threadId"), "--timeout-ms", "20000")
	if str(failed, "status") != "failed" || str(obj(failed, "result"), "availability") != "unavailable" || str(obj(failed, "result"), "message") == "" {
		t.Errorf("a failed thread: %v", failed)
	}
	sent := c.ok("thread", "send", id, "--message", "second")
	if str(sent, "threadId") != id || str(sent, "turnId") == "" || str(sent, "harnessId") != "echo" || str(sent, "status") != "running" || str(obj(sent, "next"), "wait") != bin+" thread wait "+id {
		t.Errorf("thread send: %v", sent)
	}
	c.ok("thread", "wait", id, "--timeout-ms", "20000")
	if idle := c.ok("thread", "cancel", id); idle["cancelled"] != false || str(idle, "threadId") != id || str(idle, "harnessId") != "echo" {
		t.Errorf("cancel of an idle thread: %v", idle)
	} else if turnID, present := idle["turnId"]; !present || turnID != nil {
		t.Errorf("cancel of an idle thread: turnId %v (present %v), want null", turnID, present)
	}

	// Watches: watching, an already stopped thread, a duplicate, a pending delivery to a busy
	// thread; the client's event log.
	slow := c.ok("delegate", "start", "--harness", "slow", "--task", "slowly")
	slowID := str(slow, "threadId")
	w := c.ok("thread", "watch", slowID, "--notify", sid)
	if str(w, "threadId") != slowID || str(w, "notifyThreadId") != sid || str(w, "state") != "watching" || str(w, "status") != "running" || w["timeoutMs"] == nil {
		t.Errorf("thread watch: %v", w)
	}
	c.ok("thread", "watch", slowID, "--notify", sid) // the same pair: existing
	if term := c.ok("thread", "watch", id); str(term, "state") != "alreadyTerminal" || str(term, "status") != "completed" {
		t.Errorf("watch of a stopped thread: %v", term)
	}
	c.ok("thread", "wait", slowID, "--timeout-ms", "20000")
	var pending map[string]any
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ws := c.ok("thread", "watches")
		entries, _ := ws["watches"].([]any)
		for _, e := range entries {
			if m := e.(map[string]any); str(m, "threadId") == slowID && str(m, "state") == "pendingDelivery" {
				pending = m
			}
		}
		if pending != nil {
			break
		}
	}
	if ws := c.ok("thread", "watches"); strings.Contains(mustJSON(ws), `"pending"`) {
		t.Errorf("thread watches says pending beside pendingDelivery: %v", ws)
	}
	if pending == nil || str(pending, "notifyThreadId") != sid || str(pending, "outcome") != "completed" || str(pending, "turnId") == "" || str(pending, "registeredAt") == "" {
		t.Errorf("the watch of the slow thread, its recipient busy: %v", pending)
	}
	if cancelled := c.ok("thread", "cancel", sid); cancelled["cancelled"] != true || str(cancelled, "turnId") == "" {
		t.Errorf("cancel of a running thread: %v", cancelled)
	}
	events := h.asClient(tok, "client", "events", "--follow", "--timeout-ms", "20000")
	if events.code != 0 || !strings.Contains(events.stdout, `"result":"interrupted"`) {
		t.Errorf("client events --follow --timeout-ms: %s", events)
	}
	for _, line := range strings.Split(strings.TrimSpace(events.stdout), "\n") {
		c.drift.add("client events", line)
	}

	// list, harness list and inspect.
	listed := c.ok("thread", "list", "--limit", "100")
	threads, _ := listed["threads"].([]any)
	if _, present := listed["nextCursor"]; !present || listed["nextCursor"] != nil || len(threads) < 5 {
		t.Errorf("thread list: nextCursor %v, %d threads", listed["nextCursor"], len(threads))
	}
	for _, e := range threads {
		th := e.(map[string]any)
		if str(th, "threadId") == "" || str(th, "harnessId") == "" || !strings.HasPrefix(str(th, "deepLink"), "codex://threads/") || str(th, "createdAt") == "" || str(th, "updatedAt") == "" ||
			!slices.Contains([]string{"creating", "running", "completed", "failed", "interrupted"}, str(th, "status")) {
			t.Errorf("list item %v", th)
		}
	}
	if hl := c.ok("harness", "list"); !slices.Equal(anyStrings(hl["harnesses"]), []string{"codex", "echo", "failer", "sleeper", "slow"}) {
		t.Errorf("harness list: %v", hl)
	}
	ins := c.ok("harness", "inspect", "echo", "--cwd", h.work)
	if str(ins, "source") != "config" || !slices.Equal(anyStrings(ins["thinking"]), []string{}) || len(ins["models"].([]any)) != 2 {
		t.Errorf("harness inspect echo: %v", ins)
	}
	c.ok("harness", "inspect", "codex")

	// Compact: public links, harness and status; no ids beside links.
	short := h.asClient(tok, "delegate", "start", "--harness", "echo", "--task", "compact one", "--format", "compact")
	var cdoc map[string]any
	short.decode(t, &cdoc)
	if cdoc["threadId"] != nil || !strings.HasPrefix(str(cdoc, "thread"), "codex://threads/") || str(cdoc, "harnessId") != "echo" || str(cdoc, "status") == "" || idBesideLink(cdoc) {
		t.Errorf("delegate start --format compact: %s", short.stdout)
	}
	var clist map[string]any
	h.asClient(tok, "thread", "list", "--format", "compact").decode(t, &clist)
	for _, e := range clist["threads"].([]any) {
		th := e.(map[string]any)
		if th["threadId"] != nil || th["id"] != nil || !strings.HasPrefix(str(th, "thread"), "codex://threads/") || str(th, "harnessId") == "" || str(th, "status") == "" {
			t.Errorf("compact list item %v", th)
		}
	}
	// Every command's compact form keeps the rules of the manual's COMPACT section.
	for _, args := range [][]string{{"thread", "read", id}, {"thread", "wait", id}, {"thread", "read", id, "--view", "messages"}, {"thread", "list"},
		{"thread", "watches"}, {"thread", "watch", slowID, "--notify", sid}, {"thread", "cancel", id}, {"harness", "list"}, {"harness", "inspect", "echo"}} {
		var doc any
		h.asClient(tok, append(args, "--format", "compact")...).decode(t, &doc)
		if err := api.CheckCompact(doc); err != nil {
			t.Errorf("%v --format compact: %v", args, err)
		}
	}

	if len(c.drift.undocumented) > 0 {
		t.Errorf("emitted keys the manual does not document:\n%s", strings.Join(c.drift.undocumented, "\n"))
	}
	if never := c.drift.never(driftExempt); len(never) > 0 {
		t.Errorf("documented keys no command emitted: %v", never)
	}
}

// driftExempt are documented keys that these runs cannot produce, each with why.
var driftExempt = map[string]string{
	"Thread.waitingOnApproval":    "needs a native turn waiting for an approval",
	"Thread.title":                "external threads have no title; native ones take Codex's",
	"Message.phase":               "Codex 0.169 gives agent messages no phase against the fake model",
	"Watch.deliveredAt":           "delivered watches are not listed",
	"Watch.messageFile":           "only marker reports have one",
	"Watch.reason":                "undeliverable watches only (runtime/watch tests)",
	"WatchEntry.reason":           "undeliverable watches only (runtime/watch tests)",
	"client events.reason":        "unreadable and notFound outcomes only (runtime/watch tests)",
	"thread read.approvals":       "a native thread asked for approval (e2e: TestApprovalDecisionsShowInTheTranscript)",
	"thread wait.approvals":       "a native thread asked for approval (e2e: TestApprovalDecisionsShowInTheTranscript)",
	"Approval.command":            "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.createdAt":          "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.cwd":                "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.decidedAt":          "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.decidedBy":          "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.decision":           "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.decisions":          "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.expiresAt":          "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.id":                 "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.itemId":             "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.kind":               "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.lease":              "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.outcome":            "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.reasked":            "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.reason":             "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.server":             "approvals of MCP tool calls (harness: TestMCPToolCallElicitationsAreHeldAsApprovals)",
	"Approval.state":              "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.threadId":           "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"Approval.turnId":             "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"ApprovalLease.expires":       "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"ApprovalLease.fence":         "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"ApprovalLease.holder":        "approvals of native threads (e2e: TestApprovalDecisionsShowInTheTranscript, approvals_takeover_test.go)",
	"client events.approval":      "watches on approval only (e2e: TestApprovalWatchNotifiesTheClient)",
	"Watch.on":                    "watches on approval only (e2e: TestApprovalWatchNotifiesTheClient)",
	"Watch.approval":              "watches on approval only (runtime/watch: TestWatchOnApprovalNotifiesWhenAnApprovalWaits)",
	"WatchEntry.on":               "watches on approval only (e2e: TestApprovalWatchNotifiesTheClient)",
	"WatchEntry.approval":         "watches on approval only (runtime/watch: TestWatchOnApprovalNotifiesWhenAnApprovalWaits)",
	"Thread.branchOf":             "a branch of a native session only (runtime/sessionlinks_test.go)",
	"thread read.progress":        "a running native turn only (runtime: TestRunningNativeTurnReportsProgress)",
	"TurnSummary.progress":        "a running native turn only (runtime: TestRunningNativeTurnReportsProgress)",
	"TurnProgress.items":          "a running native turn only (runtime: TestRunningNativeTurnReportsProgress)",
	"TurnProgress.commands":       "a running native turn only (runtime: TestRunningNativeTurnReportsProgress)",
	"TurnProgress.messages":       "a running native turn only (runtime: TestRunningNativeTurnReportsProgress)",
	"BranchSource.host":           "a branch of a native session only (runtime/sessionlinks_test.go)",
	"BranchSource.thread":         "a branch of a native session only (runtime/sessionlinks_test.go)",
	"thread wait.progress":        "a running native turn only (runtime: TestRunningNativeTurnReportsProgress)",
	"Usage.input":                 "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.cachedInput":           "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.output":                "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.reasoning":             "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.total":                 "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.turns":                 "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.contextWindow":         "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.contextTokens":         "threads with recorded usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.contextFill":           "a running native turn with usage (runtime: TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals)",
	"Usage.estimatedCost":         "[usage.prices] set (runtime: TestLineageSumsUsageOverATreeOfDepthThreeWithAMarkerCreatedThread)",
	"CostEstimate.amount":         "[usage.prices] set (runtime: TestLineageSumsUsageOverATreeOfDepthThreeWithAMarkerCreatedThread)",
	"CostEstimate.estimate":       "[usage.prices] set (runtime: TestLineageSumsUsageOverATreeOfDepthThreeWithAMarkerCreatedThread)",
	"CostEstimate.unpricedTokens": "[usage.prices] set (runtime: TestLineageSumsUsageOverATreeOfDepthThreeWithAMarkerCreatedThread)",
}

func anyStrings(v any) []string {
	out := []string{}
	list, _ := v.([]any)
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}
