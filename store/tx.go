package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// Tx is a transaction: reads see one snapshot, and an Update's writes commit together, or not
// at all when another transaction committed a change to a key this one read (ErrConflict).
// A Tx is only valid inside the function it was passed to.
type Tx struct {
	txn  *badger.Txn
	sync bool
}

// Get decodes the record prefix/id into v (see Record for unknown fields). A missing record
// is ErrNotFound. Inside Update the read is tracked for conflicts, which is what makes
// read-check-write sequences compare-and-set.
func (tx *Tx) Get(prefix, id string, v any) error {
	raw, err := tx.GetRaw(prefix, id)
	if err != nil {
		return err
	}
	if err := decode(raw, v); err != nil {
		return fmt.Errorf("store: decode %s/%s: %w", prefix, id, err)
	}
	return nil
}

// GetRaw returns the stored bytes of prefix/id (a copy the caller may keep). Badger panics
// on some damage found while reading; that is returned as STORE_DAMAGED.
func (tx *Tx) GetRaw(prefix, id string) (_ []byte, err error) {
	defer recoverDamage(&err, "reading "+prefix+"/"+id)
	key, err := validKey(prefix, id)
	if err != nil {
		return nil, err
	}
	item, err := tx.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get %s: %w", key, err)
	}
	raw, err := item.ValueCopy(nil)
	if err != nil {
		return nil, fmt.Errorf("store: get %s: %w", key, err)
	}
	return raw, nil
}

// Put encodes v as the record prefix/id. v must encode to a JSON object with "v" ≥ 1 (embed
// Record); unknown fields it carries from a Get are written back.
func (tx *Tx) Put(prefix, id string, v any) error {
	raw, err := encode(v)
	if err != nil {
		return fmt.Errorf("store: encode %s/%s: %w", prefix, id, err)
	}
	return tx.PutRaw(prefix, id, raw)
}

// PutRaw stores raw bytes as prefix/id without any check: for index entries (an empty value
// is fine) and data that is not a record. raw must not be changed until the transaction ends.
func (tx *Tx) PutRaw(prefix, id string, raw []byte) error {
	key, err := validKey(prefix, id)
	if err != nil {
		return err
	}
	if raw == nil {
		raw = []byte{}
	}
	if err := tx.txn.Set(key, raw); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	return nil
}

// Delete removes prefix/id. Deleting a missing key is not an error.
func (tx *Tx) Delete(prefix, id string) error {
	key, err := validKey(prefix, id)
	if err != nil {
		return err
	}
	if err := tx.txn.Delete(key); err != nil {
		return fmt.Errorf("store: delete %s: %w", key, err)
	}
	return nil
}

// SyncOnCommit makes the transaction durable: Update syncs the database after the commit and
// before it returns, so the writes survive a crash of the process or of the machine.
func (tx *Tx) SyncOnCommit() { tx.sync = true }

// View runs fn in a read-only transaction.
func (s *Store) View(fn func(tx *Tx) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	return fn(&Tx{txn: txn})
}

// Update runs fn in a read-write transaction and commits it when fn returns nil. It runs fn
// once: when a concurrent transaction committed a change to a key fn read, nothing is written
// and the error matches ErrConflict. UpdateRetry runs fn again in that case.
//
// fn must not call the Store's own methods expecting to see its uncommitted writes; use tx.
func (s *Store) Update(fn func(tx *Tx) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	tx := &Tx{txn: txn}
	if err := fn(tx); err != nil {
		return err
	}
	return s.commit(txn, tx.sync)
}

// commit commits txn and, when durable, syncs it before returning.
//
// badger's DB.Sync syncs only the active memtable's write-ahead log. Had another commit filled
// that memtable between our commit and the sync, ours would sit in a rotated memtable whose
// log nobody syncs until it is flushed. Durable commits therefore run exclusively of all
// others (every badger write goes through here: we never run value-log GC or ban namespaces,
// badger's only internal writers), so the active memtable is still ours when we sync it.
func (s *Store) commit(txn *badger.Txn, durable bool) error {
	if durable {
		s.commitMu.Lock()
		defer s.commitMu.Unlock()
	} else {
		s.commitMu.RLock()
		defer s.commitMu.RUnlock()
	}
	if err := txn.Commit(); err != nil {
		if errors.Is(err, badger.ErrConflict) {
			return ErrConflict
		}
		return fmt.Errorf("store: commit: %w", err)
	}
	if durable {
		if err := s.db.Sync(); err != nil {
			return fmt.Errorf("store: sync: %w", err)
		}
	}
	return nil
}

// UpdateAttempts is how many times UpdateRetry runs a conflicting transaction. Eight writers
// of one hot key under the race detector lost 20 rounds in a row; 64 rounds bound the pauses
// to about half a second in all.
const UpdateAttempts = 64

// UpdateRetry is Update that runs fn again, after a short randomised pause, while it ends in
// ErrConflict, up to UpdateAttempts times. fn must therefore have no effects outside tx. An
// fn may itself return ErrConflict to ask for another attempt.
func (s *Store) UpdateRetry(fn func(tx *Tx) error) error {
	var err error
	for attempt := range UpdateAttempts {
		if err = s.Update(fn); !errors.Is(err, ErrConflict) {
			return err
		}
		// Jittered exponential pause (≤ 8 ms) so contenders stop colliding in lock step.
		ceiling := 8 * time.Millisecond
		if attempt < 8 { // 50 µs << 8 is already past the cap; a larger shift would overflow
			ceiling = min(time.Duration(50<<attempt)*time.Microsecond, ceiling)
		}
		time.Sleep(rand.N(ceiling) + time.Microsecond)
	}
	return fmt.Errorf("store: gave up after %d attempts: %w", UpdateAttempts, err)
}

// Get decodes the record prefix/id into v; a missing record is ErrNotFound.
func (s *Store) Get(prefix, id string, v any) error {
	return s.View(func(tx *Tx) error { return tx.Get(prefix, id, v) })
}

// Put writes v as the record prefix/id. It is committed (visible to readers, and kept if the
// process is killed) but not synced: a machine crash may lose it. Use PutSync for writes that
// must not be lost.
func (s *Store) Put(prefix, id string, v any) error {
	return s.Update(func(tx *Tx) error { return tx.Put(prefix, id, v) })
}

// PutSync is Put followed by a sync of the database before it returns.
func (s *Store) PutSync(prefix, id string, v any) error {
	return s.Update(func(tx *Tx) error {
		tx.SyncOnCommit()
		return tx.Put(prefix, id, v)
	})
}

// Delete removes prefix/id (not synced; see Put). Deleting a missing key is not an error.
func (s *Store) Delete(prefix, id string) error {
	return s.Update(func(tx *Tx) error { return tx.Delete(prefix, id) })
}

// DeleteSync is Delete followed by a sync of the database before it returns.
func (s *Store) DeleteSync(prefix, id string) error {
	return s.Update(func(tx *Tx) error {
		tx.SyncOnCommit()
		return tx.Delete(prefix, id)
	})
}
