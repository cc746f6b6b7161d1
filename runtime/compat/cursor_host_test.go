package compat_test

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A cursor session-read refuses is refused with the compat tool's own fix: the agent pages
// with session-read (it may not run `codexhost transcript`, an operator command).
func TestCompatReadBadCursorNamesSessionRead(t *testing.T) {
	t.Parallel()
	th := newCompatHost(t, hosttest.Options{Codex: true}, config.CompatTools{Enabled: true, AllowRawTranscripts: true})
	id := hosttest.Stored(t, th.CodexHome, "first words")
	for _, cursor := range []string{"garbage", "chc1.e30.AAAA"} {
		e := hosttest.CallErr(t, th.RuntimeClient(), api.MethodCompatSessionRead, api.CompatSessionReadParams{Thread: id, Cursor: cursor}, model.CodeInvalidArgument)
		if !strings.Contains(e.Message, "cursor") || !strings.Contains(e.Hint, "compat session-read") || strings.Contains(e.Hint, "codexhost transcript") {
			t.Fatalf("cursor %q: %+v", cursor, e)
		}
	}
}
