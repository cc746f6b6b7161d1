package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Key prefixes of the delegation records. Each kind lives under its own prefix so that a build
// which does not know a kind never reads it, and never rewrites the kinds it knows because of it.
const (
	PrefixDelegation = "deleg"      // deleg/<delegationID>        → Delegation
	PrefixOrigin     = "origin"     // origin/<threadID>           → Origin (with refs)
	PrefixThread     = "thread"     // thread/<threadID>           → ThreadRecord
	PrefixRequest    = "reqid"      // reqid/<hash(origin,reqID)>  → idempotency entry
	PrefixDedupe     = "dedupe"     // dedupe/<hash(origin,h,task)> → idempotency entry
	prefixByChild    = "idx/child"  // idx/child/<child>           → delegation id
	prefixByParent   = "idx/parent" // idx/parent/<parent>/<child> → ""
	prefixByClient   = "idx/client" // idx/client/<name>/<child>   → ""
	prefixByRef      = "idx/ref"    // idx/ref/<hash(ref)>/<child> → ""
)

// DelegationRecord is a stored model.Delegation that keeps fields of newer builds.
type DelegationRecord struct {
	Unknown
	model.Delegation
}

// OriginRecord is a stored model.Origin.
type OriginRecord struct {
	Unknown
	model.Origin
}

// ThreadRecordEntry is a stored model.ThreadRecord.
type ThreadRecordEntry struct {
	Unknown
	model.ThreadRecord
}

// IdempotencyEntry maps an idempotency key to the child it produced. It holds no task text:
// the key is a hash.
type IdempotencyEntry struct {
	Record
	Thread     model.ThreadID `json:"thread"`
	Delegation string         `json:"delegation,omitempty"`
	At         time.Time      `json:"at"`
	// Params is a hash of the request's parameters (harness, task, model, cwd…): a request
	// id used again with others is refused. "" in entries written before it existed.
	Params string `json:"params,omitempty"`
}

// ParamsKey is the hash of a delegation's parameters that IdempotencyEntry.Params keeps.
func ParamsKey(parts ...string) string { return hashParts(parts...) }

// RequestKey scopes a caller's request id to its origin, so one caller can never receive the
// child of another caller's request.
func RequestKey(originKey, requestID string) string { return hashParts(originKey, requestID) }

func hashParts(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// NewDelegation is everything written, in one durable transaction, when a delegation starts.
type NewDelegation struct {
	Delegation *model.Delegation // nil for a client origin
	Origin     model.Origin
	Thread     model.ThreadRecord
	RequestKey string // "" when no request id
	DedupeKey  string // "" when a request id was given
	ParamsKey  string // the request's parameters (ParamsKey)
}

// SaveDelegation writes a new child's records and indexes durably, all or nothing.
func (s *Store) SaveDelegation(n NewDelegation) error {
	return s.UpdateRetry(func(tx *Tx) error {
		tx.SyncOnCommit()
		child := string(n.Origin.Thread)
		entry := IdempotencyEntry{Record: Record{V: 1}, Thread: n.Origin.Thread, At: n.Origin.CreatedAt, Params: n.ParamsKey}
		if n.Delegation != nil {
			entry.Delegation = n.Delegation.ID
			if err := tx.Put(PrefixDelegation, n.Delegation.ID, &DelegationRecord{Delegation: *n.Delegation}); err != nil {
				return err
			}
			if err := tx.PutRaw(prefixByChild, child, []byte(n.Delegation.ID)); err != nil {
				return err
			}
		}
		if err := tx.Put(PrefixOrigin, child, &OriginRecord{Origin: n.Origin}); err != nil {
			return err
		}
		if err := tx.Put(PrefixThread, child, &ThreadRecordEntry{ThreadRecord: n.Thread}); err != nil {
			return err
		}
		switch n.Origin.Kind {
		case model.OriginThread:
			if err := tx.PutRaw(prefixByParent, string(n.Origin.ParentThread)+"/"+child, nil); err != nil {
				return err
			}
		case model.OriginClient:
			if err := tx.PutRaw(prefixByClient, n.Origin.Client+"/"+child, nil); err != nil {
				return err
			}
		}
		for _, ref := range n.Origin.Refs {
			if err := tx.PutRaw(prefixByRef, hashParts(ref)+"/"+child, nil); err != nil {
				return err
			}
		}
		if n.RequestKey != "" {
			if err := tx.Put(PrefixRequest, n.RequestKey, &entry); err != nil {
				return err
			}
		}
		if n.DedupeKey != "" {
			if err := tx.Put(PrefixDedupe, n.DedupeKey, &entry); err != nil {
				return err
			}
		}
		return nil
	})
}

// Idempotent looks up an earlier child: by request key when the caller gave a request id
// (valid forever; distinct ids are distinct requests even with the same task), otherwise by
// dedupe key, valid for window after the first child was made.
func (s *Store) Idempotent(requestKey, dedupeKey string, now time.Time, window time.Duration) (IdempotencyEntry, bool, error) {
	var e IdempotencyEntry
	if requestKey != "" {
		err := s.Get(PrefixRequest, requestKey, &e)
		if errors.Is(err, ErrNotFound) {
			return e, false, nil
		}
		return e, err == nil, err
	}
	if dedupeKey == "" {
		return e, false, nil
	}
	err := s.Get(PrefixDedupe, dedupeKey, &e)
	if errors.Is(err, ErrNotFound) {
		return e, false, nil
	}
	if err != nil {
		return e, false, err
	}
	if now.Sub(e.At) > window || now.Before(e.At.Add(-time.Minute)) {
		return e, false, nil
	}
	return e, true, nil
}

// Delegation reads a delegation by id.
func (s *Store) Delegation(id string) (model.Delegation, error) {
	var r DelegationRecord
	err := s.Get(PrefixDelegation, id, &r)
	return r.Delegation, err
}

// DelegationOfChild finds the delegation that created a thread.
func (s *Store) DelegationOfChild(child model.ThreadID) (model.Delegation, error) {
	var d model.Delegation
	err := s.View(func(tx *Tx) error {
		id, err := tx.GetRaw(prefixByChild, string(child))
		if err != nil {
			return err
		}
		var r DelegationRecord
		if err := tx.Get(PrefixDelegation, string(id), &r); err != nil {
			return err
		}
		d = r.Delegation
		return nil
	})
	return d, err
}

// SetDelegationStatus records the child's latest status on its delegation (if any), keeping
// every field it does not know.
func (s *Store) SetDelegationStatus(child model.ThreadID, status string, at time.Time) error {
	err := s.UpdateRetry(func(tx *Tx) error {
		id, err := tx.GetRaw(prefixByChild, string(child))
		if err != nil {
			return err
		}
		var r DelegationRecord
		if err := tx.Get(PrefixDelegation, string(id), &r); err != nil {
			return err
		}
		if r.Status == status {
			return nil
		}
		r.Status = status
		r.UpdatedAt = at
		return tx.Put(PrefixDelegation, string(id), &r)
	})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Origin reads who made a thread; ErrNotFound for threads not made through codexhost.
func (s *Store) Origin(thread model.ThreadID) (model.Origin, error) {
	var r OriginRecord
	err := s.Get(PrefixOrigin, string(thread), &r)
	return r.Origin, err
}

// Thread reads a thread's registration.
func (s *Store) Thread(id model.ThreadID) (model.ThreadRecord, error) {
	var r ThreadRecordEntry
	err := s.Get(PrefixThread, string(id), &r)
	return r.ThreadRecord, err
}

// PutThread registers or updates a thread, keeping unknown fields of an existing record.
func (s *Store) PutThread(rec model.ThreadRecord) error {
	return s.UpdateRetry(func(tx *Tx) error {
		var r ThreadRecordEntry
		if err := tx.Get(PrefixThread, string(rec.ID), &r); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		r.ThreadRecord = rec
		return tx.Put(PrefixThread, string(rec.ID), &r)
	})
}

// Threads calls fn for every registered thread.
func (s *Store) Threads(fn func(model.ThreadRecord) error) error {
	return s.Scan(PrefixThread, func(_ string, raw []byte) error {
		var r ThreadRecordEntry
		if err := decode(raw, &r); err != nil {
			return nil // a record this build cannot read is skipped, never rewritten
		}
		return fn(r.ThreadRecord)
	})
}

// ChildrenOf lists the threads delegated by parent.
func (s *Store) ChildrenOf(parent model.ThreadID) ([]model.ThreadID, error) {
	return s.indexed(prefixByParent + "/" + string(parent))
}

// ThreadsOfClient lists the threads a client started.
func (s *Store) ThreadsOfClient(name string) ([]model.ThreadID, error) {
	return s.indexed(prefixByClient + "/" + name)
}

// ThreadsWithRef lists the threads carrying a (normalised) ref.
func (s *Store) ThreadsWithRef(ref string) ([]model.ThreadID, error) {
	return s.indexed(prefixByRef + "/" + hashParts(ref))
}

func (s *Store) indexed(prefix string) ([]model.ThreadID, error) {
	var ids []model.ThreadID
	err := s.Scan(prefix, func(id string, _ []byte) error {
		ids = append(ids, model.ThreadID(id))
		return nil
	})
	return ids, err
}
