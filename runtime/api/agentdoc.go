package api

import "github.com/codexhost/codexhost/model"

// The documents agent-facing commands and thread tools print. Most results print as they are;
// the watch listings speak the public watch vocabulary, in which a notification not yet
// delivered is pendingDelivery whether or not an attempt is in flight (the runtime's own
// records keep pending and delivering apart, for the engine and the app).

// WatchesDocument is thread watches as printed.
type WatchesDocument struct {
	Watches         []WatchEntry  `json:"watches" doc:"every listed watch, oldest registration first within each state"`
	Watching        []model.Watch `json:"watching" doc:"watches still observing their thread"`
	PendingDelivery []model.Watch `json:"pendingDelivery" doc:"watches whose outcome is known and whose notification is not delivered yet"`
	Undeliverable   []model.Watch `json:"undeliverable" doc:"the latest 50 watches given up on, with the reason"`
}

// AgentDocument is the document printed for the result v of an agent-facing call.
func AgentDocument(v any) any {
	switch x := v.(type) {
	case *WatchesResult:
		return watchesDocument(*x)
	case WatchesResult:
		return watchesDocument(x)
	case *WatchResult:
		return publicWatchResult(*x)
	case WatchResult:
		return publicWatchResult(x)
	case *DelegateStartResult:
		if x.Watch != nil {
			c := *x
			w := publicWatchResult(*x.Watch)
			c.Watch = &w
			return c
		}
	}
	return v
}

func watchesDocument(r WatchesResult) WatchesDocument {
	return WatchesDocument{Watches: orEmpty(r.Watches), Watching: publicRecords(r.Watching), PendingDelivery: publicRecords(r.Pending), Undeliverable: publicRecords(r.Undeliverable)}
}

func publicWatchResult(r WatchResult) WatchResult {
	if r.Watch != nil {
		w := PublicWatchRecord(*r.Watch)
		r.Watch = &w
	}
	return r
}

func publicRecords(ws []model.Watch) []model.Watch {
	out := make([]model.Watch, 0, len(ws))
	for _, w := range ws {
		out = append(out, PublicWatchRecord(w))
	}
	return out
}

// PublicWatchRecord is a watch record with its state in the public words: watching,
// pendingDelivery, delivered or undeliverable.
func PublicWatchRecord(w model.Watch) model.Watch {
	if w.State == model.WatchPending || w.State == model.WatchDelivering {
		w.State = WatchStatePendingDelivery
	}
	return w
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
