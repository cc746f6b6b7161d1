package store

import (
	"errors"

	"github.com/codexhost/codexhost/model"
)

// PrefixApproval holds approval records: approval/<approvalID> → Approval. They hold ids, the
// command or paths asked about, the reason, the decisions, the lease and the outcome; never
// file contents.
const PrefixApproval = "approval"

// ApprovalRecord is a stored model.Approval.
type ApprovalRecord struct {
	Record
	model.Approval
}

// PutApproval writes an approval durably: a decision recorded is one a restart still shows.
func (s *Store) PutApproval(a model.Approval) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var r ApprovalRecord
		if err := tx.Get(PrefixApproval, a.ID, &r); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		r.V = 1
		r.Approval = a
		return tx.Put(PrefixApproval, a.ID, &r)
	})
}

// DeleteApproval forgets an approval (the oldest decided ones are not kept).
func (s *Store) DeleteApproval(id string) error { return s.DeleteSync(PrefixApproval, id) }

// Approvals calls fn for every stored approval.
func (s *Store) Approvals(fn func(model.Approval) error) error {
	return s.Scan(PrefixApproval, func(_ string, raw []byte) error {
		var r ApprovalRecord
		if err := decode(raw, &r); err != nil {
			return nil // unreadable by this build: left alone
		}
		return fn(r.Approval)
	})
}
