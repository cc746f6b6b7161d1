package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// One thread watches document speaks one word for a notification not yet delivered: its
// list and the states of its records say pendingDelivery, never the record's pending or
// delivering.
func TestWatchesDocumentSaysPendingDeliveryOnly(t *testing.T) {
	res := WatchesResult{
		Watching: []model.Watch{{ID: "w1", State: model.WatchWatching}},
		Pending:  []model.Watch{{ID: "w2", State: model.WatchPending}, {ID: "w3", State: model.WatchDelivering}},
	}
	res.Watches = []WatchEntry{PublicWatch(res.Watching[0]), PublicWatch(res.Pending[0]), PublicWatch(res.Pending[1])}
	b, err := json.Marshal(AgentDocument(&res))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, raw := range []string{`"pending"`, `"delivering"`} {
		if strings.Contains(doc, raw) {
			t.Errorf("the document says %s: %s", raw, doc)
		}
	}
	if strings.Count(doc, `"pendingDelivery"`) != 5 { // the list's key, two records, two entries
		t.Errorf("want pendingDelivery as the key, the records' and the entries' state: %s", doc)
	}
	w := WatchResult{State: WatchStateWatching, Watch: &model.Watch{State: model.WatchDelivering}}
	if got := AgentDocument(w).(WatchResult); got.Watch.State != WatchStatePendingDelivery || w.Watch.State != model.WatchDelivering {
		t.Errorf("thread watch's record %q (the runtime's own %q must stay)", got.Watch.State, w.Watch.State)
	}
}
