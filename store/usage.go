package store

import (
	"errors"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Key prefixes of token usage. The records hold counts, ids and model names only.
const (
	PrefixThreadUsage = "usage/thread" // usage/thread/<threadID>          → ThreadUsage
	PrefixTurnUsage   = "usage/turn"   // usage/turn/<threadID>/<turnID>   → TurnUsage
)

// ThreadUsageRecord is a stored model.ThreadUsage.
type ThreadUsageRecord struct {
	Record
	model.ThreadUsage
}

// TurnUsageRecord is a stored model.TurnUsage.
type TurnUsageRecord struct {
	Record
	model.TurnUsage
}

// RecordUsage folds one usage report of a thread into its turn and its thread total, in one
// durable transaction, and returns the thread's new total. Each turn keeps its principal and
// time, so sums per principal and day are read from the turns. Synced as the other records
// are: a harness never reports a turn again, so a lost report would leave the total short.
func (s *Store) RecordUsage(thread model.ThreadID, principal string, r model.UsageReport, at time.Time) (model.ThreadUsage, error) {
	var out model.ThreadUsage
	err := s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var th ThreadUsageRecord
		if err := tx.Get(PrefixThreadUsage, string(thread), &th); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		th.V, th.Thread = 1, thread
		if principal != "" {
			th.Principal = principal
		}
		var turn TurnUsageRecord
		turnKey := string(thread) + "/" + r.Turn
		if r.Turn != "" {
			if err := tx.Get(PrefixTurnUsage, turnKey, &turn); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			turn.V, turn.Thread, turn.Principal = 1, thread, th.Principal
		}
		turn.TurnUsage, th.ThreadUsage, _ = model.ApplyUsage(turn.TurnUsage, th.ThreadUsage, r, at)
		if r.Turn != "" {
			if err := tx.Put(PrefixTurnUsage, turnKey, &turn); err != nil {
				return err
			}
		}
		if err := tx.Put(PrefixThreadUsage, string(thread), &th); err != nil {
			return err
		}
		out = th.ThreadUsage
		return nil
	})
	return out, err
}

// ThreadUsage reads a thread's total; ErrNotFound when it never reported usage.
func (s *Store) ThreadUsage(thread model.ThreadID) (model.ThreadUsage, error) {
	var r ThreadUsageRecord
	err := s.Get(PrefixThreadUsage, string(thread), &r)
	return r.ThreadUsage, err
}

// TurnUsages calls fn for every recorded turn, thread by thread.
func (s *Store) TurnUsages(fn func(model.TurnUsage) error) error {
	return s.Scan(PrefixTurnUsage, func(_ string, raw []byte) error {
		var r TurnUsageRecord
		if err := decode(raw, &r); err != nil {
			return nil // a record this build cannot read is skipped, never rewritten
		}
		return fn(r.TurnUsage)
	})
}
