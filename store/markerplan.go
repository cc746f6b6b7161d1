package store

import (
	"time"

	"github.com/codexhost/codexhost/model"
)

// A completed turn is recorded here, durably, the moment the runtime learns of it and before
// its marker blocks are read; the record goes in the same transaction as the turn's run (or
// once the turn is known to have none). A crash in between leaves the record, and the next
// runtime plans the turn again, so no completed turn's blocks are lost.
const PrefixMarkerPlan = "markerplan" // markerplan/<author>/<turn> → MarkerPlanRecord

// MarkerPlanRecord is a completed turn whose blocks were not planned yet.
type MarkerPlanRecord struct {
	Record
	Author model.ThreadID `json:"author"`
	Turn   string         `json:"turn"`
	At     time.Time      `json:"at"`
}

func planKey(author model.ThreadID, turn string) string { return string(author) + "/" + turn }

// PutMarkerPlan records that author's turn completed and waits for its blocks to be planned.
func (s *Store) PutMarkerPlan(author model.ThreadID, turn string, at time.Time) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		return tx.Put(PrefixMarkerPlan, planKey(author, turn), &MarkerPlanRecord{Record: Record{V: 1}, Author: author, Turn: turn, At: at})
	})
}

// DeleteMarkerPlan: the turn's blocks are planned (or it had none).
func (s *Store) DeleteMarkerPlan(author model.ThreadID, turn string) error {
	return s.DeleteSync(PrefixMarkerPlan, planKey(author, turn))
}

// MarkerPlans calls fn for every completed turn still waiting for its plan.
func (s *Store) MarkerPlans(fn func(author model.ThreadID, turn string) error) error {
	return s.Scan(PrefixMarkerPlan, func(key string, raw []byte) error {
		var r MarkerPlanRecord
		if err := decode(raw, &r); err != nil || r.Author == "" {
			return nil
		}
		return fn(r.Author, r.Turn)
	})
}

// planned drops the turn's plan record inside tx: its run is being written.
func planned(tx *Tx, author model.ThreadID, turn string) error {
	if author == "" || turn == "" {
		return nil
	}
	return tx.Delete(PrefixMarkerPlan, planKey(author, turn))
}
