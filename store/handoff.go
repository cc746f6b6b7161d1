package store

import (
	"errors"

	"github.com/codexhost/codexhost/model"
)

// Key prefixes of handoffs and their tasks. The records hold ids, risk, operations, the root,
// decisions and times: the handoff text, prompts and output stay in 0600 files of the home.
const (
	PrefixHandoff = "handoff" // handoff/<handoffID> → HandoffRecord
	PrefixTask    = "task"    // task/<threadID>     → TaskRecord
)

// HandoffEntry is a stored model.HandoffRecord that keeps fields of newer builds.
type HandoffEntry struct {
	Unknown
	model.HandoffRecord
}

// TaskEntry is a stored model.TaskRecord that keeps fields of newer builds.
type TaskEntry struct {
	Unknown
	model.TaskRecord
}

// PutHandoff writes a handoff record durably.
func (s *Store) PutHandoff(r model.HandoffRecord) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var e HandoffEntry
		if err := tx.Get(PrefixHandoff, r.ID, &e); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		e.HandoffRecord = r
		return tx.Put(PrefixHandoff, r.ID, &e)
	})
}

// Handoff reads a handoff record; ErrNotFound when there is none.
func (s *Store) Handoff(id string) (model.HandoffRecord, error) {
	var e HandoffEntry
	err := s.Get(PrefixHandoff, id, &e)
	return e.HandoffRecord, err
}

// Handoffs calls fn for every handoff record this build can read.
func (s *Store) Handoffs(fn func(model.HandoffRecord) error) error {
	return s.Scan(PrefixHandoff, func(_ string, raw []byte) error {
		var e HandoffEntry
		if decode(raw, &e) != nil {
			return nil // unreadable by this build: left alone
		}
		return fn(e.HandoffRecord)
	})
}

// PutTask writes a task record durably.
func (s *Store) PutTask(r model.TaskRecord) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var e TaskEntry
		if err := tx.Get(PrefixTask, string(r.ID), &e); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		e.TaskRecord = r
		return tx.Put(PrefixTask, string(r.ID), &e)
	})
}

// UpdateTask applies fn to a stored task record and writes it back durably, in one transaction.
func (s *Store) UpdateTask(id model.ThreadID, fn func(*model.TaskRecord) error) (model.TaskRecord, error) {
	var out model.TaskRecord
	err := s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var e TaskEntry
		if err := tx.Get(PrefixTask, string(id), &e); err != nil {
			return err
		}
		if err := fn(&e.TaskRecord); err != nil {
			return err
		}
		out = e.TaskRecord
		return tx.Put(PrefixTask, string(id), &e)
	})
	return out, err
}

// Task reads a task record; ErrNotFound when there is none.
func (s *Store) Task(id model.ThreadID) (model.TaskRecord, error) {
	var e TaskEntry
	err := s.Get(PrefixTask, string(id), &e)
	return e.TaskRecord, err
}

// Tasks calls fn for every task record this build can read.
func (s *Store) Tasks(fn func(model.TaskRecord) error) error {
	return s.Scan(PrefixTask, func(_ string, raw []byte) error {
		var e TaskEntry
		if decode(raw, &e) != nil {
			return nil
		}
		return fn(e.TaskRecord)
	})
}
