package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/model"
)

// RestoreInfo describes what Restore did.
type RestoreInfo struct {
	From string `json:"from"`
	// Replaced is where the database that was there before now is (moved, never deleted);
	// empty when the home had none.
	Replaced string    `json:"replaced,omitempty"`
	Records  int       `json:"records"`
	At       time.Time `json:"at"`
	// MissingTranscripts counts restored threads of external harnesses without a transcript in
	// the home's transcripts directory: the backup holds the database only, so they are listed
	// nowhere until their files are copied back from the old home.
	MissingTranscripts int `json:"missingTranscripts,omitempty"`
}

// RestoreOptions are the choices of a restore.
type RestoreOptions struct {
	// Replace puts the backup in place of a database that holds records or cannot be opened.
	Replace bool
	// AllowEmpty accepts a backup without records, which would empty the store.
	AllowEmpty bool
}

// Restore loads the backup at path (written by BackupTo) into a fresh database and puts it in
// place of the home's. No runtime may hold the home. The whole file is checked first: one not
// in the backup format, or one without records (unless o.AllowEmpty), is refused before the
// store is touched. A database that holds records, or that cannot be opened (damaged), is
// replaced only with o.Replace; it is moved to db-replaced-<time> beside the new one, never
// deleted. A backup that fails to load leaves the home as it was, with no staging directory.
func Restore(home, path string, o RestoreOptions, now time.Time) (RestoreInfo, error) {
	home, err := filepath.Abs(home)
	if err != nil {
		return RestoreInfo{}, err
	}
	if err := ensurePrivateDir(home, true); err != nil {
		return RestoreInfo{}, err
	}
	src, err := os.Open(path)
	if err != nil {
		return RestoreInfo{}, model.Errorf(model.CodeInvalidArgument, "name a file written by `codexhost backup`", "cannot read the backup %s: %v", path, err)
	}
	defer src.Close()
	records, err := checkBackup(src, path)
	if err != nil {
		return RestoreInfo{}, err
	}
	if records == 0 && !o.AllowEmpty {
		return RestoreInfo{}, model.Errorf(model.CodeFailedPrecondition, "add --allow-empty to restore it all the same (the store is then empty)",
			"the backup %s holds no records", path)
	}
	dir := filepath.Join(home, DBDir)
	_, present, err := exists(dir)
	if err != nil {
		return RestoreInfo{}, err
	}
	if present {
		if err := checkReplaceable(home, o.Replace); err != nil {
			return RestoreInfo{}, err
		}
	}
	stamp := now.UTC().Format("20060102T150405Z")
	staging := filepath.Join(home, "db-restore-"+stamp)
	placed := false
	defer func() {
		if !placed {
			_ = os.RemoveAll(staging) // only what this call created
		}
	}()
	records, external, err := loadInto(staging, bufio.NewReaderSize(src, 1<<20))
	if err != nil {
		return RestoreInfo{}, err
	}
	missing, err := missingTranscripts(home, external)
	if err != nil {
		return RestoreInfo{}, err
	}
	info := RestoreInfo{From: path, Records: records, At: now.UTC(), MissingTranscripts: missing}
	swap := func() error {
		if present {
			info.Replaced = filepath.Join(home, "db-replaced-"+stamp)
			if err := os.Rename(dir, info.Replaced); err != nil {
				return fmt.Errorf("store: move the old database aside: %w", err)
			}
		}
		if err := os.Rename(staging, dir); err != nil {
			if present {
				_ = os.Rename(info.Replaced, dir) // the home keeps what it had
			}
			return fmt.Errorf("store: put the restored database in place: %w", err)
		}
		placed = true
		// The loss it recorded was of the database now set aside.
		if err := os.Remove(filepath.Join(home, LostWritesFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if present {
		err = withDirLock(dir, swap)
	} else {
		err = swap()
	}
	if err != nil {
		return RestoreInfo{}, err
	}
	return info, nil
}

// checkReplaceable refuses a held home, and without replace a database holding records or
// one that cannot be opened.
func checkReplaceable(home string, replace bool) error {
	s, err := Open(home, Options{})
	switch {
	case errors.Is(err, ErrHeld):
		return model.Errorf(model.CodeFailedPrecondition, "stop every codexhost runtime on this home (the terminal app, `codexhost serve`), then restore",
			"a runtime holds the home %s; a restore would pull the database from under it", home)
	case err != nil && !replace:
		return model.Errorf(model.CodeFailedPrecondition, "add --replace to put the backup in its place (the old database is kept beside it)",
			"the home's database cannot be opened (%v)", model.AsError(err).Message)
	case err != nil:
		return nil
	}
	n := 0
	scanErr := s.View(func(tx *Tx) error {
		it := tx.txn.NewIterator(badgerKeysOnly())
		defer it.Close()
		for it.Rewind(); it.Valid() && n == 0; it.Next() {
			n++
		}
		return nil
	})
	if cerr := s.Close(); scanErr == nil {
		scanErr = cerr
	}
	if scanErr != nil {
		return scanErr
	}
	if n > 0 && !replace {
		return model.Errorf(model.CodeFailedPrecondition, "add --replace to put the backup in its place (the old database is kept beside it)",
			"the home %s already has a database with records", home)
	}
	return nil
}

// loadInto creates a database at dir and loads a backup stream into it, returning how many
// keys it holds and the threads of external harnesses among them.
func loadInto(dir string, r *bufio.Reader) (int, []string, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return 0, nil, fmt.Errorf("store: create %s: %w", dir, err)
	}
	db, err := openWithPrivateUmask(badgerOptions(dir, Options{}))
	if err != nil {
		return 0, nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	if err := loadRecovered(db, r); err != nil {
		_ = db.Close()
		return 0, nil, model.Errorf(model.CodeInvalidArgument, "name a complete file written by `codexhost backup`", "the backup cannot be loaded: %v", err)
	}
	n := 0
	_ = db.View(func(txn *badgerTxn) error {
		it := txn.NewIterator(badgerKeysOnly())
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	external, err := externalThreads(db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, nil, err
	}
	return n, external, sweepModes(dir)
}

type badgerTxn = badger.Txn

func badgerKeysOnly() badger.IteratorOptions {
	o := badger.DefaultIteratorOptions
	o.PrefetchValues = false
	return o
}
