package store

import (
	"errors"

	"github.com/codexhost/codexhost/model"
)

// Keys of the turns in flight (blocks not planned yet) and of the planned turns.
const (
	PrefixMarkerTurn    = "markerturn"        // markerturn/<author>/<turn>        → MarkerTurn
	prefixMarkerRunTurn = "idx/markerrunturn" // idx/markerrunturn/<author>/<turn> → run id
)

// ErrPlanned is PlanMarkerRun's answer for a turn whose blocks were planned before.
var ErrPlanned = errors.New("store: the blocks of this turn are planned already")

// MarkerTurnRecord is a stored model.MarkerTurn.
type MarkerTurnRecord struct {
	Unknown
	model.MarkerTurn
}

// PutMarkerTurn records an author's turn in flight, started or completed. It need not be
// synced: badger keeps it across a crash of the process, and only a crash of the machine
// loses it.
func (s *Store) PutMarkerTurn(t model.MarkerTurn) error {
	return s.UpdateRetry(func(tx *Tx) error {
		t.V = 1
		return tx.Put(PrefixMarkerTurn, turnKey(t.Author, t.Turn), &MarkerTurnRecord{MarkerTurn: t})
	})
}

// SettleMarkerTurn forgets a turn in flight: it ended otherwise, or it had no blocks.
func (s *Store) SettleMarkerTurn(author model.ThreadID, turn string) error {
	return s.UpdateRetry(func(tx *Tx) error { return tx.Delete(PrefixMarkerTurn, turnKey(author, turn)) })
}

func turnKey(author model.ThreadID, turn string) string { return string(author) + "/" + turn }

// MarkerTurns calls fn for every turn in flight.
func (s *Store) MarkerTurns(fn func(model.MarkerTurn) error) error {
	return s.Scan(PrefixMarkerTurn, func(_ string, raw []byte) error {
		var r MarkerTurnRecord
		if err := decode(raw, &r); err != nil {
			return nil // unreadable by this build: left alone
		}
		return fn(r.MarkerTurn)
	})
}

// PlanMarkerRun records a new run of a completed turn's blocks, indexes it under its turn and
// settles the turn in flight, durably and in one transaction, before any block runs. A turn
// planned before is refused with ErrPlanned: each completed turn's blocks run once.
func (s *Store) PlanMarkerRun(r model.MarkerRun) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		key := turnKey(r.Author, r.Turn)
		if _, err := tx.GetRaw(prefixMarkerRunTurn, key); err == nil {
			return ErrPlanned
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := putRun(tx, r); err != nil {
			return err
		}
		if err := tx.PutRaw(prefixMarkerRunTurn, key, []byte(r.ID)); err != nil {
			return err
		}
		return tx.Delete(PrefixMarkerTurn, key)
	})
}
