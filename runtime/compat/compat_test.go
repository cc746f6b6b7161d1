package compat

import (
	"errors"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Agents reach the compat tools only as far as the [supervision] table lets them, each
// switch named in the refusal.
func TestAgentGateFollowsTheSupervisionTable(t *testing.T) {
	for _, tc := range []struct {
		tools      config.CompatTools
		raw, write bool
		want       string // "" admits
	}{
		{config.CompatTools{}, false, false, "enabled = true"},
		{config.CompatTools{Enabled: true}, false, false, ""},
		{config.CompatTools{Enabled: true}, true, false, "allowRawTranscripts"},
		{config.CompatTools{Enabled: true, AllowRawTranscripts: true}, true, false, ""},
		{config.CompatTools{Enabled: true, AllowRawTranscripts: true}, false, true, "allowWriteControls"},
		{config.CompatTools{Enabled: true, AllowWriteControls: true}, false, true, ""},
	} {
		err := agentGate(tc.raw, tc.write)(&config.Config{CompatTools: tc.tools}, "compat.x")
		var me *model.Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v raw=%v write=%v: refused: %v", tc.tools, tc.raw, tc.write, err)
		case tc.want != "" && (!errors.As(err, &me) || me.Code != model.CodePermissionDenied || !strings.Contains(me.Hint, tc.want)):
			t.Errorf("%+v raw=%v write=%v: %v, want PERMISSION_DENIED naming %s", tc.tools, tc.raw, tc.write, err, tc.want)
		}
	}
}

// A send never starts or resumes a thread and carries a message.
func TestCheckSendRefusesStartsAndEmptyMessages(t *testing.T) {
	for _, p := range []api.CompatSessionSendParams{
		{Mode: api.CompatModeStart, Message: "hi"},
		{Mode: "resume", Message: "hi"},
		{Message: "  \n"},
	} {
		if err := checkSend(p); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("%+v: %v, want INVALID_ARGUMENT", p, err)
		}
	}
	for _, mode := range []string{"", api.CompatModeAuto, api.CompatModeSteer} {
		if err := checkSend(api.CompatSessionSendParams{Mode: mode, Message: "go on"}); err != nil {
			t.Errorf("mode %q: %v", mode, err)
		}
	}
	if decodeHint(errors.New(`json: unknown field "loaded_only"`)) == "" || decodeHint(errors.New("other")) != "" {
		t.Error("the decode hint names include_stored only for loaded_only")
	}
}
