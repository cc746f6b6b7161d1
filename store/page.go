package store

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/model"
)

// StopScan returned by a Scan callback ends the scan early without error.
var StopScan = errors.New("store: stop scan")

// Scan calls fn for every record under prefix/ in key order, in one snapshot. Keys of other
// prefixes are never seen, even ones that extend this prefix ("delegx/…" for "deleg"). id is
// the key without "prefix/"; raw is a copy the caller may keep.
func (s *Store) Scan(prefix string, fn func(id string, raw []byte) error) error {
	return s.View(func(tx *Tx) error { return tx.Scan(prefix, fn) })
}

// Scan is Store.Scan inside a transaction; in an Update the keys seen are tracked for
// conflicts.
func (tx *Tx) Scan(prefix string, fn func(id string, raw []byte) error) error {
	if err := validPrefix(prefix); err != nil {
		return err
	}
	p := []byte(prefix + "/")
	err := tx.iterate(p, nil, false, func(key, raw []byte) (bool, error) {
		return true, fn(string(key[len(p):]), raw)
	})
	if errors.Is(err, StopScan) {
		return nil
	}
	return err
}

// Page calls fn for the records under prefix/ that follow cursor, in key order (descending
// when reverse), until fn has kept limit of them; records fn rejects (keep false) do not count.
// It returns the cursor of the next page, or "" when no record follows. A page may come back
// with fewer than limit records, even none, when fn rejects the rest.
//
// Cursors are opaque (base64url of the last key visited) and stay valid across writes: the
// next page starts after that key whether or not it still exists. A cursor from a reverse page
// may be used forward and the other way round. A malformed cursor, or one of another prefix,
// is INVALID_ARGUMENT.
func (s *Store) Page(prefix, cursor string, limit int, reverse bool,
	fn func(id string, raw []byte) (keep bool, err error)) (next string, err error) {
	if err := validPrefix(prefix); err != nil {
		return "", err
	}
	if limit < 1 {
		return "", model.Errorf(model.CodeInvalidArgument, "pass a limit of 1 or more",
			"page limit %d is not positive", limit)
	}
	p := []byte(prefix + "/")
	var after []byte
	if cursor != "" {
		k, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(k) <= len(p) || !bytes.HasPrefix(k, p) {
			return "", model.Errorf(model.CodeInvalidArgument,
				"pass the cursor exactly as the previous page returned it, or omit it to start from the first page",
				"invalid cursor %q", cursor)
		}
		after = k
	}
	err = s.View(func(tx *Tx) error {
		kept := 0
		var last []byte
		return tx.iterate(p, after, reverse, func(key, raw []byte) (bool, error) {
			if kept == limit {
				// A record follows the page: hand out a cursor to it.
				next = base64.RawURLEncoding.EncodeToString(last)
				return false, nil
			}
			keep, err := fn(string(key[len(p):]), raw)
			if err != nil {
				return false, err
			}
			last = key
			if keep {
				kept++
			}
			return true, nil
		})
	})
	if err != nil {
		return "", err
	}
	return next, nil
}

// iterate visits the keys under p strictly after `after` (nil: from the first key) in the given
// direction, passing copies of key and value, while visit returns true.
func (tx *Tx) iterate(p, after []byte, reverse bool, visit func(key, raw []byte) (bool, error)) error {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Reverse = reverse
	if !reverse {
		opts.Prefix = p
	}
	it := tx.txn.NewIterator(opts)
	defer it.Close()

	seek := after
	if seek == nil {
		seek = p
		if reverse {
			// Reverse Seek lands on the greatest key <= seek; the smallest key above the whole
			// range is p with its last byte ('/') incremented. opts.Prefix is left unset in
			// reverse because it would end the iteration on that very key.
			seek = append(bytes.Clone(p[:len(p)-1]), p[len(p)-1]+1)
		}
	}
	for it.Seek(seek); it.Valid(); it.Next() {
		item := it.Item()
		key := item.Key()
		if !bytes.HasPrefix(key, p) {
			if reverse && bytes.Compare(key, p) > 0 {
				continue // the seek key itself
			}
			return nil
		}
		if after != nil && bytes.Equal(key, after) {
			continue
		}
		raw, err := item.ValueCopy(nil)
		if err != nil {
			return fmt.Errorf("store: read %s: %w", key, err)
		}
		more, err := visit(item.KeyCopy(nil), raw)
		if err != nil || !more {
			return err
		}
	}
	return nil
}
