package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
)

// documentedUsageLines are the usage lines the README and the manual show, as written.
func documentedUsageLines(t *testing.T) []string {
	t.Helper()
	var lines []string
	for _, doc := range []string{"../README.md", "../cli/manual/delegate.md"} {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range strings.Split(string(raw), "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, harness.UsageLinePrefix+" {") {
				lines, n = append(lines, l), n+1
			}
		}
		if n == 0 {
			t.Fatalf("%s shows no %s line", doc, harness.UsageLinePrefix)
		}
	}
	return lines
}

// gatedUsageScript prints its argument ($0) on stderr once a file named gate appears in the
// working directory, so a watch can be set while the turn runs.
const gatedUsageScript = `cat >/dev/null; i=0; while [ ! -e gate ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done
printf '%s\n' "$0" >&2; echo done`

// The usage line the README and the manual document works as written: an external harness
// printing it on stderr gets exactly those tokens, and a watch notification of the thread
// carries them, in the client's event log and in the notified thread's notification turn.
func TestDocumentedUsageLineIsRecordedAndWatchNotificationsCarryIt(t *testing.T) {
	t.Parallel()
	lines := documentedUsageLines(t)
	hs := map[string]config.Harness{"shell": testHarnesses["shell"]}
	for i, l := range lines {
		hs[fmt.Sprintf("doc%d", i)] = config.Harness{Command: []string{"sh", "-c", gatedUsageScript, l}}
	}
	th := newTestHost(t, hostOptions{operators: []string{"ops"}, harnesses: hs})
	c := th.client("ops")
	for i, l := range lines {
		var want struct {
			Input, CachedInput, Output, Reasoning, ContextWindow int64
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, harness.UsageLinePrefix)), &want); err != nil {
			t.Fatalf("documented line %q: %v", l, err)
		}
		cwd := t.TempDir()
		id := delegate(t, c, api.DelegateStartParams{Harness: fmt.Sprintf("doc%d", i), Task: "metered", Cwd: cwd}).Thread.ID
		recipient := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "recipient", Cwd: t.TempDir()}).Thread.ID
		waitStopped(t, c, recipient)
		for _, notify := range []string{"client:ops", recipient} {
			if w := call[api.WatchResult](t, c, api.MethodThreadWatch, api.ThreadWatchParams{Thread: id, Notify: notify}); w.State != "watching" {
				t.Fatalf("watch of %s for %s: %+v", id, notify, w)
			}
		}
		if err := os.WriteFile(filepath.Join(cwd, "gate"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		got := waitStopped(t, c, id).Thread.Usage
		wantTokens(t, l, got, want.Input, want.CachedInput, want.Output, want.Reasoning, 1)
		if got.ContextWindow != want.ContextWindow {
			t.Errorf("%s: context window %d, want %d", l, got.ContextWindow, want.ContextWindow)
		}

		var event model.ClientEvent
		eventually(t, "the client's notification of "+id, func() bool {
			for _, ev := range call[api.ClientEventsResult](t, c, api.MethodClientEvents, api.ClientEventsParams{Limit: 100}).Events {
				if ev.Thread == model.ThreadID(id) && ev.Type == "watch.notification" {
					event = ev
					return true
				}
			}
			return false
		})
		wantTokens(t, "client notification", event.Usage, want.Input, want.CachedInput, want.Output, want.Reasoning, 1)
		line := "tokens used: " + model.UsageLine(got)
		eventually(t, "the notification turn of "+recipient, func() bool {
			msgs := call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: recipient, View: model.ViewMessages}).Messages
			for _, m := range msgs {
				if strings.Contains(m.Text, id) && strings.Contains(m.Text, line) {
					return true
				}
			}
			return false
		})
	}
}
