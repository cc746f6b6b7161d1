package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Scenario: S003-04 — `continue` on a fresh machine makes the supervised thread once: a second
// command (another embedded runtime) returns the same thread; node hosts are refused.
func TestS003_04_ContinueCommandReturnsTheSameThreadAcrossRuns(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	src := stored(t, codexHome, "hello from the source")
	operatorHome(t, bin, codexHome)

	out, errOut, code := run(t, "continue", src, "--json")
	if code != 0 {
		t.Fatalf("continue: %d %s", code, errOut)
	}
	var first api.CatalogContinueResult
	if err := json.Unmarshal([]byte(out), &first); err != nil {
		t.Fatalf("continue JSON: %v\n%s", err, out)
	}
	if first.Existing || first.State != model.SupervisionPending || first.Source != src || first.Thread.ID == "" || first.Thread.ID == src || first.History.Messages != 2 {
		t.Fatalf("continue %s", out)
	}
	// The history itself stays in the runtime's home; only its sizes are printed.
	if strings.Contains(out, "fake reply") {
		t.Fatalf("continue printed the history: %s", out)
	}
	human, _, code := run(t, "continue", "codex://threads/"+src)
	if code != 0 || !strings.Contains(human, "supervised thread "+first.Thread.ID+" (pending, existing)") || !strings.Contains(human, "history: 2 messages") {
		t.Fatalf("second continue (%d):\n%s", code, human)
	}
	_, errOut, code = run(t, "continue", src, "--host", "node:mac")
	if code != 1 || errorCode(t, errOut) != model.CodeInvalidArgument || !strings.Contains(errOut, "unknown host") {
		t.Fatalf("node host (%d): %s", code, errOut)
	}
}
