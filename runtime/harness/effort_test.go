package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// effortOf is the CODEXHOST_EFFORT line of an env dump, "" when there is none.
func effortOf(env string) string {
	for _, line := range strings.Split(env, "\n") {
		if v, ok := strings.CutPrefix(line, EnvEffort+"="); ok {
			return v
		}
	}
	return ""
}

// A thread's effort reaches every turn of it, also after a restart (it is in the transcript's
// thread entry); a thread without one gets no CODEXHOST_EFFORT, even when the runtime's own
// environment has it. Serial (t.Setenv): that environment is the process's.
func TestExternalEffortReachesEveryTurnAndSurvivesARestart(t *testing.T) {
	t.Setenv(EnvEffort, "low")
	dir := t.TempDir()
	cfg := ExternalConfig{Command: extTestSh(`cat >/dev/null; env`)}
	x, _ := extTestNew(t, dir, cfg)
	ctx := context.Background()
	high, err := x.Start(ctx, StartRequest{Cwd: t.TempDir(), Effort: "max"})
	if err != nil {
		t.Fatal(err)
	}
	plain := extTestStart(t, x)
	for _, id := range []model.ThreadID{high, plain} {
		extTestSend(t, x, id, "env")
	}
	lastEffort := func(x *External, id model.ThreadID) string {
		snap := extTestIdle(t, x, id)
		if snap.Result == nil {
			t.Fatalf("no result: %+v", snap)
		}
		return effortOf(snap.Result.Text)
	}
	if got := lastEffort(x, high); got != "max" {
		t.Fatalf("effort max thread: CODEXHOST_EFFORT=%q", got)
	}
	if got := lastEffort(x, plain); got != "" {
		t.Fatalf("thread without effort: CODEXHOST_EFFORT=%q", got)
	}
	x.Close()

	again, _ := extTestNew(t, dir, cfg)
	extTestSend(t, again, high, "env again")
	if got := lastEffort(again, high); got != "max" {
		t.Fatalf("after a restart: CODEXHOST_EFFORT=%q", got)
	}
	line, err := transcriptReadMeta(filepath.Join(dir, string(high)+".jsonl"))
	if err != nil || line.Effort != "max" {
		t.Fatalf("thread entry %+v, %v", line, err)
	}
}

func TestStartRefusesAnUnknownEffort(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("cat")})
	_, err := x.Start(context.Background(), StartRequest{Cwd: t.TempDir(), Effort: "extreme"})
	wantCode(t, err, model.CodeInvalidArgument)
	entries, _ := os.ReadDir(x.opts.TranscriptDir)
	if len(entries) != 0 {
		t.Fatalf("a refused start left %d transcripts", len(entries))
	}
}

func TestCodexEffortMapsMaxToXhigh(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "xhigh"} {
		if got := CodexEffort(in); got != want {
			t.Errorf("CodexEffort(%q) = %q, want %q", in, got, want)
		}
	}
}

// The effort of a native thread is what Codex sends the model as reasoning.effort, max as
// xhigh, and the thread keeps it when a new App Server resumes it.
func TestNativeEffortReachesTheModelAndSurvivesAnAppServerRestart(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	ctx := context.Background()
	id, err := n.Start(ctx, StartRequest{Cwd: t.TempDir(), Effort: "max"})
	if err != nil {
		t.Fatal(err)
	}
	plain := n.start(t)
	n.run(t, id, "think hard")
	n.run(t, plain, "think as usual")
	if got := env.requestEffort(t, "think hard"); got != "xhigh" {
		t.Fatalf("reasoning.effort %q, want xhigh", got)
	}
	if got := env.requestEffort(t, "think as usual"); got != "" {
		t.Fatalf("a thread without effort sent reasoning.effort %q", got)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	other := env.native(t)
	other.run(t, id, "think hard again")
	if got := env.requestEffort(t, "think hard again"); got != "xhigh" {
		t.Fatalf("after an App Server restart: reasoning.effort %q", got)
	}
}

// requestEffort is reasoning.effort of the model request for the user text.
func (e *nativeEnv) requestEffort(t *testing.T, text string) string {
	t.Helper()
	for _, r := range e.fake.Requests() {
		if r.UserText != text {
			continue
		}
		reasoning, _ := r.JSON["reasoning"].(map[string]any)
		effort, _ := reasoning["effort"].(string)
		return effort
	}
	t.Fatalf("no model request for %q", text)
	return ""
}
