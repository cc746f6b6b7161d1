package marker_test

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Issue 28: a task-create block may ask for an approval policy within its author's: an
// untrusted author's children may run under never or untrusted, one asking for on-request
// (wider) is refused, one naming no policy runs under the author's, and an unknown policy is
// skipped before anything runs.
func TestMarkerCreatesTakeAnApprovalPolicyWithinTheAuthors(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}})
	c := th.Client("bot")
	m := &markerEnv{Host: th, c: c}
	th.Fake.Enqueue(fakemodel.Reply(fence("task-create", `{"name":"narrower","prompt":"a","approval":"never"}`) +
		fence("task-create", `{"name":"same","prompt":"b","approval":"untrusted"}`) +
		fence("task-create", `{"name":"wider","prompt":"c","approval":"on-request"}`) +
		fence("task-create", `{"name":"inherits","prompt":"d"}`) +
		fence("task-create", `{"name":"unknown","prompt":"e","approval":"always"}`)))
	author := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Approval: model.ApprovalUntrusted, Task: "plan", Cwd: t.TempDir()}).Thread.ID
	report := m.report(author)
	for _, want := range []string{`"narrower": accepted`, `"same": accepted`, `"inherits": accepted`,
		`"wider": rejected (create_failed): PERMISSION_DENIED`, `5. task-create: skipped (approval_invalid)`} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	// Blocks by their position: 1 narrower, 2 same, 4 inherits.
	want := map[int]string{1: model.ApprovalNever, 2: model.ApprovalUntrusted, 4: model.ApprovalUntrusted}
	got := map[int]string{}
	for _, a := range m.markers(author).Audit {
		if a.Created == "" {
			continue
		}
		pol, ok := th.Native().PolicyOf(a.Created)
		if !ok {
			t.Fatalf("no policy of %s", a.Created)
		}
		got[a.Seq] = pol.Approval
	}
	if len(got) != len(want) {
		t.Fatalf("created threads' policies by block %v, want %v", got, want)
	}
	for seq, policy := range want {
		if got[seq] != policy {
			t.Errorf("block %d's thread runs under %q, want %q", seq, got[seq], policy)
		}
	}
}
