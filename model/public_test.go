package model

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPublicStatus(t *testing.T) {
	turn := func(s string) *TurnSummary { return &TurnSummary{ID: "t", Status: s} }
	for _, c := range []struct {
		info ThreadInfo
		want string
	}{
		{ThreadInfo{Status: ThreadIdle}, StatusCreating},
		{ThreadInfo{Status: ThreadActive}, StatusRunning},
		{ThreadInfo{Status: ThreadNotLoaded, LastTurn: turn(TurnInProgress)}, StatusRunning},
		{ThreadInfo{Status: ThreadIdle, LastTurn: turn(TurnCompleted)}, StatusCompleted},
		{ThreadInfo{Status: ThreadIdle, LastTurn: turn(TurnFailed)}, StatusFailed},
		{ThreadInfo{Status: ThreadNotLoaded, LastTurn: turn(TurnInterrupted)}, StatusInterrupted},
		{ThreadInfo{Status: ThreadSystemError}, StatusFailed},
		{ThreadInfo{Status: ThreadSystemError, LastTurn: turn(TurnFailed)}, StatusFailed},
	} {
		if got := PublicStatus(c.info); got != c.want {
			t.Errorf("PublicStatus(%+v) = %s, want %s", c.info, got, c.want)
		}
	}
}

func TestResultAvailability(t *testing.T) {
	for _, c := range []struct {
		r       Result
		running bool
		want    string
		message bool
	}{
		{Result{Status: TurnCompleted, Text: "done"}, false, ResultAvailable, false},
		{Result{Status: TurnCompleted, Text: "old"}, true, ResultPending, false},
		{Result{Status: TurnCompleted}, false, ResultUnavailable, true},
		{Result{Status: TurnFailed, Error: "boom"}, false, ResultUnavailable, true},
		{Result{Status: TurnInterrupted}, false, ResultUnavailable, true},
	} {
		r := c.r
		r.SetAvailability(c.running)
		if r.Availability != c.want || (r.Message != "") != c.message {
			t.Errorf("%+v running %v: availability %s message %q", c.r, c.running, r.Availability, r.Message)
		}
	}
}

// In JSON the assistant role is "agent"; both spellings read back as RoleAssistant.
func TestMessageRoleJSON(t *testing.T) {
	b, err := json.Marshal(Message{Role: RoleAssistant, Text: "hi"})
	if err != nil || string(b) != `{"role":"agent","text":"hi"}` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	for _, in := range []string{`{"role":"agent","text":"hi"}`, `{"role":"assistant","text":"hi"}`} {
		var m Message
		if err := json.Unmarshal([]byte(in), &m); err != nil || m.Role != RoleAssistant {
			t.Errorf("unmarshal %s: %+v %v", in, m, err)
		}
	}
}

func FuzzMessageJSON(f *testing.F) {
	for _, s := range []string{`{"role":"agent","text":"hi"}`, `{"role":"user","text":"x","turnId":"t","id":"t/0"}`, `{"role":7}`, `null`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var m Message
		if json.Unmarshal([]byte(in), &m) != nil {
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("marshal %+v: %v", m, err)
		}
		var back Message
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Fatalf("round trip of %+v gave %+v (%v)", m, back, err)
		}
	})
}

// A turn in flight is "running" on the wire, as every public status says, and reads back as
// the runtime's own inProgress; the other statuses pass unchanged.
func TestTurnSummaryStatusIsPublicOnTheWire(t *testing.T) {
	for raw, wire := range map[string]string{TurnInProgress: StatusRunning, TurnCompleted: TurnCompleted, TurnFailed: TurnFailed} {
		b, err := json.Marshal(ThreadInfo{LastTurn: &TurnSummary{ID: "t", Status: raw}})
		if err != nil || !strings.Contains(string(b), `"lastTurn":{"id":"t","status":"`+wire+`"`) {
			t.Fatalf("%s marshals as %s (%v)", raw, b, err)
		}
		var back ThreadInfo
		if err := json.Unmarshal(b, &back); err != nil || back.LastTurn.Status != raw {
			t.Fatalf("%s reads back as %+v (%v)", raw, back.LastTurn, err)
		}
	}
}
