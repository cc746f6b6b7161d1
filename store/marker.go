package store

import (
	"errors"
	"fmt"

	"github.com/codexhost/codexhost/model"
)

// Key prefixes of marker blocks. Each kind has its own prefix, so a build that does not know
// marker blocks never reads them.
const (
	PrefixMarkerAudit   = "markeraudit"      // markeraudit/<author>/<auditID>   → MarkerAudit
	PrefixMarkerChild   = "markerchild"      // markerchild/<child>              → MarkerChild
	PrefixMarkerRun     = "markerrun"        // markerrun/<runID>                → MarkerRun
	prefixMarkerByAuthr = "idx/markerparent" // idx/markerparent/<parent>/<child> → ""
)

// MarkerAuditRecord is a stored model.MarkerAudit.
type MarkerAuditRecord struct {
	Unknown
	model.MarkerAudit
}

// MarkerChildRecord is a stored model.MarkerChild.
type MarkerChildRecord struct {
	Unknown
	model.MarkerChild
}

// MarkerRunRecord is a stored model.MarkerRun.
type MarkerRunRecord struct {
	Unknown
	model.MarkerRun
}

type emptyRecord struct {
	Record
}

// PutMarkerAudits writes the audit records of one turn's blocks durably, all or nothing.
func (s *Store) PutMarkerAudits(audits []model.MarkerAudit) error {
	if len(audits) == 0 {
		return nil
	}
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		for _, a := range audits {
			a.V = 1
			if err := tx.Put(PrefixMarkerAudit, string(a.Author)+"/"+a.ID, &MarkerAuditRecord{MarkerAudit: a}); err != nil {
				return err
			}
		}
		return nil
	})
}

// MarkerAudits returns the audit of one author, oldest first (audit ids are time-ordered).
func (s *Store) MarkerAudits(author model.ThreadID) ([]model.MarkerAudit, error) {
	var out []model.MarkerAudit
	err := s.Scan(PrefixMarkerAudit+"/"+string(author), func(_ string, raw []byte) error {
		var r MarkerAuditRecord
		if err := decode(raw, &r); err != nil {
			return nil // unreadable by this build: left alone
		}
		out = append(out, r.MarkerAudit)
		return nil
	})
	return out, err
}

// PutMarkerChild records a marker-created thread and indexes it under its parent, durably.
func (s *Store) PutMarkerChild(c model.MarkerChild) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		c.V = 1
		if err := tx.Put(PrefixMarkerChild, string(c.Child), &MarkerChildRecord{MarkerChild: c}); err != nil {
			return err
		}
		return tx.Put(prefixMarkerByAuthr, string(c.Parent)+"/"+string(c.Child), &emptyRecord{Record{V: 1}})
	})
}

// MarkerChild returns the marker-creation record of a thread; ErrNotFound when a marker
// block did not create it.
func (s *Store) MarkerChild(child model.ThreadID) (model.MarkerChild, error) {
	var r MarkerChildRecord
	if err := s.Get(PrefixMarkerChild, string(child), &r); err != nil {
		return model.MarkerChild{}, err
	}
	return r.MarkerChild, nil
}

// EachMarkerChild calls fn for every marker-creation record.
func (s *Store) EachMarkerChild(fn func(model.MarkerChild) error) error {
	return s.Scan(PrefixMarkerChild, func(_ string, raw []byte) error {
		var r MarkerChildRecord
		if err := decode(raw, &r); err != nil {
			return nil // unreadable by this build: left alone
		}
		return fn(r.MarkerChild)
	})
}

// MarkerChildren counts the marker-created children of a parent.
func (s *Store) MarkerChildren(parent model.ThreadID) (int, error) {
	n := 0
	err := s.Scan(prefixMarkerByAuthr+"/"+string(parent), func(string, []byte) error {
		n++
		return nil
	})
	return n, err
}

// PutMarkerRun writes a run durably.
func (s *Store) PutMarkerRun(r model.MarkerRun) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		return putRun(tx, r)
	})
}

func putRun(tx *Tx, r model.MarkerRun) error {
	var rec MarkerRunRecord
	if err := tx.Get(PrefixMarkerRun, r.ID, &rec); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	r.V = 1
	rec.MarkerRun = r
	return tx.Put(PrefixMarkerRun, r.ID, &rec)
}

// ReportMarkerRun marks a run reported and queues its report notification in the same
// durable transaction, so the report is queued exactly once whatever crashes around it. A
// run that is no longer running (reported or abandoned already) queues nothing: ErrNotFound.
func (s *Store) ReportMarkerRun(r model.MarkerRun, w model.Watch) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var cur MarkerRunRecord
		if err := tx.Get(PrefixMarkerRun, r.ID, &cur); err != nil {
			return err
		}
		if cur.State != model.MarkerRunning {
			return fmt.Errorf("marker run %s is %s: %w", r.ID, cur.State, ErrNotFound)
		}
		r.State = model.MarkerReported
		if err := putRun(tx, r); err != nil {
			return err
		}
		var wr WatchRecord
		wr.Watch = w
		return tx.Put(PrefixWatch, w.ID, &wr)
	})
}

// MarkerRuns calls fn for every stored run.
func (s *Store) MarkerRuns(fn func(model.MarkerRun) error) error {
	return s.Scan(PrefixMarkerRun, func(_ string, raw []byte) error {
		var r MarkerRunRecord
		if err := decode(raw, &r); err != nil {
			return nil
		}
		return fn(r.MarkerRun)
	})
}

// DeleteMarkerRun removes a finished run and its turn's index entry.
func (s *Store) DeleteMarkerRun(id string) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		var r MarkerRunRecord
		if err := tx.Get(PrefixMarkerRun, id, &r); err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}
		if err := tx.Delete(prefixMarkerRunTurn, string(r.Author)+"/"+r.Turn); err != nil {
			return err
		}
		return tx.Delete(PrefixMarkerRun, id)
	})
}
