package store

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/codexhost/codexhost/model"
)

// Key prefixes of the watch engine.
const (
	PrefixWatch       = "watch"    // watch/<watchID>                → Watch
	prefixClientEvent = "clientev" // clientev/<client>/<seq:020d>    → ClientEvent
	prefixClientSeq   = "clientseq"
)

// WatchRecord is a stored model.Watch.
type WatchRecord struct {
	Unknown
	model.Watch
}

// ClientEventRecord is a stored model.ClientEvent.
type ClientEventRecord struct {
	Unknown
	model.ClientEvent
}

type seqRecord struct {
	Record
	Last uint64 `json:"last"`
}

// PutWatch writes a watch durably: it is synced before the call returns.
func (s *Store) PutWatch(w model.Watch) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var r WatchRecord
		if err := tx.Get(PrefixWatch, w.ID, &r); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		r.Watch = w
		return tx.Put(PrefixWatch, w.ID, &r)
	})
}

// DeleteWatch removes a watch durably.
func (s *Store) DeleteWatch(id string) error { return s.DeleteSync(PrefixWatch, id) }

// Watches calls fn for every stored watch.
func (s *Store) Watches(fn func(model.Watch) error) error {
	return s.Scan(PrefixWatch, func(_ string, raw []byte) error {
		var r WatchRecord
		if err := decode(raw, &r); err != nil {
			return nil // unreadable by this build: left alone
		}
		return fn(r.Watch)
	})
}

// AppendClientEvent adds ev to the client's log with the next cursor and, when w is not nil,
// writes w in the same durable transaction (so a delivery is recorded exactly when its event
// exists).
func (s *Store) AppendClientEvent(client string, ev model.ClientEvent, w *model.Watch) (model.ClientEvent, error) {
	err := s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var seq seqRecord
		if err := tx.Get(prefixClientSeq, client, &seq); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		seq.V = 1
		seq.Last++
		if err := tx.Put(prefixClientSeq, client, &seq); err != nil {
			return err
		}
		ev.V = 1
		ev.Cursor = strconv.FormatUint(seq.Last, 10)
		if err := tx.Put(prefixClientEvent, client+"/"+fmt.Sprintf("%020d", seq.Last), &ClientEventRecord{ClientEvent: ev}); err != nil {
			return err
		}
		if w != nil {
			var r WatchRecord
			if err := tx.Get(PrefixWatch, w.ID, &r); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			r.Watch = *w
			return tx.Put(PrefixWatch, w.ID, &r)
		}
		return nil
	})
	return ev, err
}

// ClientEvents returns up to limit events of a client after the cursor ("" = from the start).
func (s *Store) ClientEvents(client, after string, limit int) ([]model.ClientEvent, error) {
	var from uint64
	if after != "" {
		n, err := strconv.ParseUint(after, 10, 64)
		if err != nil {
			return nil, model.Errorf(model.CodeInvalidArgument, "pass the cursor of an event you received", "malformed event cursor %q", after)
		}
		from = n
	}
	var out []model.ClientEvent
	err := s.Scan(prefixClientEvent+"/"+client, func(id string, raw []byte) error {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil || n <= from {
			return nil
		}
		var r ClientEventRecord
		if err := decode(raw, &r); err != nil {
			return nil
		}
		out = append(out, r.ClientEvent)
		if len(out) >= limit {
			return StopScan
		}
		return nil
	})
	return out, err
}
