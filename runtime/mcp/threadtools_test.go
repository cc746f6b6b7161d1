package mcp

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
)

// The list the native harness approves for a thread is the server's own thread tools, with
// the same read-only flags: a tool added here and not there would prompt (and so fail under
// approval_policy = "never"); one approved there and gone here would be a stale approval.
func TestThreadToolListMatchesTheRegistrations(t *testing.T) {
	t.Parallel()
	var got []api.ThreadTool
	for _, d := range Definitions() {
		if strings.HasPrefix(d.Name, "thread.") {
			got = append(got, api.ThreadTool{Name: d.Alias, ReadOnly: d.ReadOnly})
		}
	}
	if len(got) != len(api.ThreadTools) {
		t.Fatalf("registered %v, listed %v", got, api.ThreadTools)
	}
	for i := range got {
		if got[i] != api.ThreadTools[i] {
			t.Fatalf("tool %d: registered %+v, listed %+v", i, got[i], api.ThreadTools[i])
		}
	}
}
