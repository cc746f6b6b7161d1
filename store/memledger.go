package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4/table"

	"github.com/codexhost/codexhost/model"
)

// Writes not yet in a table live only in badger's memtable files (*.mem). Badger replays what
// it finds, so a memtable file that went missing (deleted, or lost with a crash) loses its
// writes without a word. The store keeps a ledger of the memtable files there were, beside
// them, and compares: a listed file that is gone while no table was written since (a flush
// deletes the file it wrote out) was lost, not flushed.
const (
	// memLedgerFile, in the database directory, lists its memtable files (memLedger).
	memLedgerFile = "codexhost-memtables.json"
	// LostWritesFile, in the home, records a loss found at Open, so that doctor still reports
	// it after the runtime started on what was left; a restore removes it.
	LostWritesFile = "lost-writes.json"
)

// lossHint is the way out of a loss: a backup from before it, or accepting what is left.
const lossHint = "stop every codexhost runtime on this home and run `codexhost restore --replace FILE` with a backup from before the loss (%s is kept beside the restored database), or delete %s to accept what is left"

// memLedger is what the database directory held: its memtable files and its newest table.
type memLedger struct {
	Mem      []string `json:"mem"`
	MaxTable uint64   `json:"maxTable"`
}

// LostWrites is a loss of writes found in a database.
type LostWrites struct {
	At      time.Time `json:"at"`
	Missing []string  `json:"missingMemtables"`
}

// ledgerOf reads what dir holds now.
func ledgerOf(dir string) (memLedger, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return memLedger{}, fmt.Errorf("store: list %s: %w", dir, err)
	}
	l := memLedger{Mem: []string{}}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".mem"):
			l.Mem = append(l.Mem, name)
		case strings.HasSuffix(name, ".sst"):
			if id, ok := table.ParseFileID(name); ok && id > l.MaxTable {
				l.MaxTable = id
			}
		}
	}
	slices.Sort(l.Mem)
	return l, nil
}

// writeLedger records what dir holds now, synced; it returns the ledger written.
func writeLedger(dir string, last *memLedger) error {
	l, err := ledgerOf(dir)
	if err != nil {
		return err
	}
	if last != nil && slices.Equal(l.Mem, last.Mem) && l.MaxTable == last.MaxTable {
		return nil
	}
	b, _ := json.Marshal(l)
	if _, err := writeAtomic(filepath.Join(dir, memLedgerFile), func(f *os.File) error {
		_, werr := f.Write(append(b, '\n'))
		return werr
	}); err != nil {
		return err
	}
	if last != nil {
		*last = l
	}
	return nil
}

// lostMemtables lists the memtable files the ledger names that are gone although no table was
// written since it was recorded. A directory without a ledger (older, or restored) has none.
func lostMemtables(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, memLedgerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var was memLedger
	if err := json.Unmarshal(b, &was); err != nil {
		return nil, fmt.Errorf("store: %s: %w", memLedgerFile, err)
	}
	now, err := ledgerOf(dir)
	if err != nil {
		return nil, err
	}
	if now.MaxTable > was.MaxTable {
		return nil, nil // a flush since: the missing files may have been written out
	}
	var lost []string
	for _, m := range was.Mem {
		if !slices.Contains(now.Mem, m) {
			lost = append(lost, m)
		}
	}
	return lost, nil
}

// noteLoss keeps a loss found at Open in the home's LostWritesFile (merged with one already
// there).
func noteLoss(home string, lost []string, now time.Time) error {
	prev, _, _ := readLoss(home)
	l := LostWrites{At: now.UTC(), Missing: lost}
	if prev != nil {
		l.At = prev.At
		l.Missing = append(prev.Missing, lost...)
	}
	b, _ := json.Marshal(l)
	_, err := writeAtomic(filepath.Join(home, LostWritesFile), func(f *os.File) error {
		_, werr := f.Write(append(b, '\n'))
		return werr
	})
	return err
}

func readLoss(home string) (*LostWrites, bool, error) {
	b, err := os.ReadFile(filepath.Join(home, LostWritesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var l LostWrites
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, false, fmt.Errorf("store: %s: %w", LostWritesFile, err)
	}
	return &l, true, nil
}

// lossError reports lost memtable files as damage: the records written last are gone.
func lossError(dir string, missing []string) *model.Error {
	return model.Errorf(model.CodeStoreDamaged, fmt.Sprintf(lossHint, dir, filepath.Join(filepath.Dir(dir), LostWritesFile)),
		"the database %s lost the writes held in memtable file(s) %s (missing, never written to a table): records written last are gone",
		dir, strings.Join(missing, ", ")).WithDetail("path", dir).WithDetail("missingMemtables", missing)
}

// checkLoss is the loss check of Verify: memtable files missing now, or a loss Open found.
func checkLoss(home, dir string) *model.Error {
	lost, err := lostMemtables(dir)
	if err != nil {
		return model.AsError(err)
	}
	if prev, _, _ := readLoss(home); prev != nil {
		lost = append(prev.Missing, lost...)
	}
	if len(lost) == 0 {
		return nil
	}
	return lossError(dir, lost)
}
