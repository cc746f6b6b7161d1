package supervise

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/codexhost/codexhost/internal/atomicfile"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/catalog"
)

// DirName is the directory of the home that holds the branches' files: conversation
// content, so files (0700 directory, 0600 files) rather than store records, which hold ids
// and state only.
const DirName = "supervision"

// The files of a branch: its bounded history and, for a node-bound branch, its latest turn.

// historyPath is the file of a branch's history.
func (b *Branches) historyPath(thread model.ThreadID) string {
	return filepath.Join(b.dir, string(thread)+".json")
}

// writeHistory stores a branch's history durably: a private temporary file, synced, then
// renamed into place, so a crash leaves the old file or the new one, never half of one.
func (b *Branches) writeHistory(thread model.ThreadID, h catalog.History) error {
	raw, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return b.writeFile(b.historyPath(thread), raw)
}

// writeFile replaces path (in the supervision directory) durably with raw, mode 0600.
func (b *Branches) writeFile(path string, raw []byte) error {
	if err := atomicfile.Write(path, raw); err != nil {
		return historyIOError(err)
	}
	return nil
}

// NodeTurn is the latest turn of a thread bound to a paired node's thread, as the gateway
// saw it. It is a file beside the thread's history (its final text is conversation content),
// so a restarted runtime still reports it, and reports a turn it was waiting for when it
// stopped as interrupted.
type NodeTurn struct {
	V         int       `json:"v"`
	TurnID    string    `json:"turnId"`
	Status    string    `json:"status"` // model.Turn*
	Text      string    `json:"text,omitempty"`
	Error     string    `json:"error,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
}

func (b *Branches) nodeTurnPath(thread model.ThreadID) string {
	return filepath.Join(b.dir, string(thread)+".turn.json")
}

// SaveNodeTurn records the latest node turn of thread.
func (b *Branches) SaveNodeTurn(thread model.ThreadID, t NodeTurn) error {
	t.V = 1
	raw, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return b.writeFile(b.nodeTurnPath(thread), raw)
}

// LoadNodeTurn reads the latest node turn of thread; ok is false when it never ran one.
func (b *Branches) LoadNodeTurn(thread model.ThreadID) (t NodeTurn, ok bool, err error) {
	raw, err := os.ReadFile(b.nodeTurnPath(thread))
	if errors.Is(err, os.ErrNotExist) {
		return NodeTurn{}, false, nil
	}
	if err != nil {
		return NodeTurn{}, false, historyIOError(err)
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return NodeTurn{}, false, model.Errorf(model.CodeFailedPrecondition, "delete "+b.nodeTurnPath(thread)+"; only the last turn's result is lost",
			"the last turn of supervised thread %s cannot be read", thread)
	}
	return t, true, nil
}

// History reads the history a supervised thread carries.
func (b *Branches) History(thread model.ThreadID) (catalog.History, error) {
	raw, err := os.ReadFile(b.historyPath(thread))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return catalog.History{}, model.Errorf(model.CodeFailedPrecondition, "continue the source again from a fresh home, or restore the file from a backup",
				"the history of supervised thread %s is missing from the home", thread)
		}
		return catalog.History{}, historyIOError(err)
	}
	var h catalog.History
	if err := json.Unmarshal(raw, &h); err != nil {
		return catalog.History{}, model.Errorf(model.CodeFailedPrecondition, "the file "+b.historyPath(thread)+" is damaged", "the history of supervised thread %s cannot be read", thread)
	}
	return h, nil
}

func historyIOError(err error) error {
	return model.Errorf(model.CodeFailedPrecondition, "check the free space and permissions of the home directory", "the branch history could not be stored: %v", err)
}
