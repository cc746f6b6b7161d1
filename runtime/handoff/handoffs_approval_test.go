package handoff_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A task asks for an approval policy only as wide as [handoff] max_approval allows (default
// never); a refusal names the key, and an unknown policy is not a policy.
func TestTaskApprovalWithinMaxApproval(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{}, func(c *config.Config) { c.Handoff.MaxApproval = model.ApprovalUntrusted })
	dir := projectDir(t, root, "appr")
	c := th.Client("bot")
	start := func(approval string) api.TaskStartParams {
		return api.TaskStartParams{Task: "do it", ProjectPath: dir, Approval: approval}
	}
	if e := hosttest.CallErr(t, c, api.MethodTaskStart, start("on-request"), model.CodePermissionDenied); !strings.Contains(e.Hint, "max_approval") || !strings.Contains(e.Message, `"untrusted"`) {
		t.Fatalf("on-request above untrusted: %+v", e)
	}
	if e := hosttest.CallErr(t, c, api.MethodTaskStart, start("always"), model.CodeInvalidArgument); !strings.Contains(e.Message, "always") {
		t.Fatalf("unknown policy: %+v", e)
	}

	th2, root2 := handoffHost(t, hosttest.Options{}, nil)
	dir2 := projectDir(t, root2, "appr")
	if e := hosttest.CallErr(t, th2.Client("bot"), api.MethodTaskStart, api.TaskStartParams{Task: "do it", ProjectPath: dir2, Approval: "untrusted"}, model.CodePermissionDenied); !strings.Contains(e.Hint, "max_approval") || !strings.Contains(e.Message, `"never"`) {
		t.Fatalf("untrusted by default: %+v", e)
	}
	if th2.ThreadRecords() != 0 {
		t.Fatal("a refused start started a thread")
	}
}

// Under max_approval = "untrusted" a task started with approval untrusted runs its thread
// under it on the real App Server: Codex asks before the command runs, the request waits as
// an approval the task's client answers, and the command runs once accepted.
func TestTaskUnderApprovalAsksAndRunsOnAccept(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, func(c *config.Config) { c.Handoff.MaxApproval = model.ApprovalUntrusted })
	dir := projectDir(t, root, "appr")
	th.Fake.Enqueue(fakemodel.Shell("echo approved > approved.txt"))
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(dir))
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID, Approval: "untrusted"})
	if started.Task.Approval != model.ApprovalUntrusted {
		t.Fatalf("started %+v", started.Task)
	}
	var pending model.Approval
	hosttest.Eventually(t, "the task's approval", func() bool {
		res := hosttest.Call[api.ApprovalListResult](t, c, api.MethodApprovalList, api.ApprovalListParams{Pending: true})
		if len(res.Approvals) == 1 {
			pending = res.Approvals[0]
		}
		return len(res.Approvals) == 1
	})
	if pending.ThreadID != started.Task.TaskID || pending.Kind != model.ApprovalCommand || !strings.Contains(pending.Command, "approved.txt") {
		t.Fatalf("pending %+v", pending)
	}
	if _, err := os.Stat(filepath.Join(dir, "approved.txt")); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	hosttest.Call[api.ApprovalResult](t, c, api.MethodApprovalAnswer, api.ApprovalAnswerParams{ID: pending.ID, Decision: model.DecisionAccept})
	info := waitTask(t, c, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	if info.Status != model.TaskCompleted || info.Approval != model.ApprovalUntrusted {
		t.Fatalf("status %+v", info)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "approved.txt")); err != nil || string(b) != "approved\n" {
		t.Fatalf("approved.txt %q %v", b, err)
	}
}
