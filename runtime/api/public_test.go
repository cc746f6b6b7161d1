package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// A read without a finished turn prints result {availability: pending} and reads back as no
// result; the messages view prints nextCursor null on its last page.
func TestThreadReadResultJSON(t *testing.T) {
	b, err := json.Marshal(ThreadReadResult{ThreadID: "x", Messages: []model.Message{}})
	if err != nil || !strings.Contains(string(b), `"result":{"availability":"pending"}`) || !strings.Contains(string(b), `"nextCursor":null`) {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back ThreadReadResult
	if err := json.Unmarshal(b, &back); err != nil || back.Result != nil || back.ThreadID != "x" {
		t.Fatalf("unmarshal: %+v %v", back, err)
	}
	b, _ = json.Marshal(ThreadReadResult{Result: &model.Result{TurnID: "t", Status: model.TurnCompleted, Availability: model.ResultPending}})
	if err := json.Unmarshal(b, &back); err != nil || back.Result == nil || back.Result.TurnID != "t" || strings.Contains(string(b), "nextCursor") {
		t.Fatalf("a pending result of an older turn: %s → %+v", b, back.Result)
	}
}

func TestPublicWatchStates(t *testing.T) {
	for state, want := range map[string]string{model.WatchWatching: WatchStateWatching, model.WatchPending: WatchStatePendingDelivery,
		model.WatchDelivering: WatchStatePendingDelivery, model.WatchUndeliverable: WatchStateUndeliverable} {
		if got := PublicWatch(model.Watch{State: state}).State; got != want {
			t.Errorf("%s → %s, want %s", state, got, want)
		}
	}
}
