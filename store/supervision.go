package store

import (
	"errors"
	"fmt"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Key prefixes of supervised threads. The records hold ids, state and the model pair only; the
// bounded history a pending branch carries is conversation content and stays out of the store.
const (
	PrefixSupervision   = "superv"       // superv/<supervisedThread>         → Supervision
	prefixSupervisedSrc = "superv-src"   // superv-src/<host>/<sourceThread>  → supervised thread id
	prefixSupervisedCan = "superv-canon" // superv-canon/<canonicalThread>    → supervised thread id
)

// ErrRebind: the supervised thread is already bound to another canonical thread. A binding is
// never replaced: the thread is model-locked to what its first turn started.
var ErrRebind = errors.New("store: supervised thread already bound")

// SupervisionRecord is a stored model.Supervision that keeps fields of newer builds.
type SupervisionRecord struct {
	Unknown
	model.Supervision
}

func sourceKey(host string, source model.ThreadID) string { return host + "/" + string(source) }

// CreateSupervision registers a new pending supervised thread of a source, with its thread
// record, durably; or, when the source already has one, returns that one and created=false.
func (s *Store) CreateSupervision(sup model.Supervision, thread model.ThreadRecord) (model.Supervision, bool, error) {
	var out model.Supervision
	created := false
	err := s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		created = false
		if id, err := tx.GetRaw(prefixSupervisedSrc, sourceKey(sup.Host, sup.Source)); err == nil {
			var r SupervisionRecord
			if err := tx.Get(PrefixSupervision, string(id), &r); err != nil {
				return err
			}
			out = r.Supervision
			return nil
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		if _, err := tx.GetRaw(PrefixSupervision, string(sup.Thread)); err == nil {
			return fmt.Errorf("store: supervised thread %s exists already", sup.Thread)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := tx.Put(PrefixSupervision, string(sup.Thread), &SupervisionRecord{Supervision: sup}); err != nil {
			return err
		}
		if err := tx.PutRaw(prefixSupervisedSrc, sourceKey(sup.Host, sup.Source), []byte(sup.Thread)); err != nil {
			return err
		}
		if err := tx.Put(PrefixThread, string(thread.ID), &ThreadRecordEntry{ThreadRecord: thread}); err != nil {
			return err
		}
		out, created = sup, true
		return nil
	})
	return out, created, err
}

// Supervision reads a supervised thread's binding; ErrNotFound for any other thread.
func (s *Store) Supervision(thread model.ThreadID) (model.Supervision, error) {
	var r SupervisionRecord
	err := s.Get(PrefixSupervision, string(thread), &r)
	return r.Supervision, err
}

// SupervisionOfSource finds the supervised thread branched from a source on a host.
func (s *Store) SupervisionOfSource(host string, source model.ThreadID) (model.Supervision, error) {
	return s.supervisionBy(prefixSupervisedSrc, sourceKey(host, source))
}

// SupervisionOfCanonical finds the supervised thread bound to a canonical native thread.
func (s *Store) SupervisionOfCanonical(canonical model.ThreadID) (model.Supervision, error) {
	return s.supervisionBy(prefixSupervisedCan, string(canonical))
}

func (s *Store) supervisionBy(prefix, key string) (model.Supervision, error) {
	var out model.Supervision
	err := s.View(func(tx *Tx) error {
		id, err := tx.GetRaw(prefix, key)
		if err != nil {
			return err
		}
		var r SupervisionRecord
		if err := tx.Get(PrefixSupervision, string(id), &r); err != nil {
			return err
		}
		out = r.Supervision
		return nil
	})
	return out, err
}

// BindSupervision commits a pending supervised thread to its canonical thread and the model
// pair Codex chose, durably. Binding again to the same canonical thread returns the record
// unchanged; any other rebinding fails with ErrRebind and changes nothing.
func (s *Store) BindSupervision(thread, canonical model.ThreadID, modelName, provider string, at time.Time) (model.Supervision, error) {
	var out model.Supervision
	err := s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var r SupervisionRecord
		if err := tx.Get(PrefixSupervision, string(thread), &r); err != nil {
			return err
		}
		if r.State == model.SupervisionBound || r.Canonical != "" {
			if r.Canonical == canonical && r.Model == modelName && r.ModelProvider == provider {
				out = r.Supervision
				return nil
			}
			return ErrRebind
		}
		if owner, err := tx.GetRaw(prefixSupervisedCan, string(canonical)); err == nil {
			if model.ThreadID(owner) != thread {
				return ErrRebind
			}
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		r.State, r.Canonical, r.Model, r.ModelProvider = model.SupervisionBound, canonical, modelName, provider
		r.UpdatedAt, r.BoundAt = at, at
		if err := tx.Put(PrefixSupervision, string(thread), &r); err != nil {
			return err
		}
		if err := tx.PutRaw(prefixSupervisedCan, string(canonical), []byte(thread)); err != nil {
			return err
		}
		var tr ThreadRecordEntry
		switch err := tx.Get(PrefixThread, string(thread), &tr); {
		case err == nil:
			tr.Model, tr.UpdatedAt = modelName, at
			if err := tx.Put(PrefixThread, string(thread), &tr); err != nil {
				return err
			}
		case !errors.Is(err, ErrNotFound):
			return err
		}
		out = r.Supervision
		return nil
	})
	return out, err
}
