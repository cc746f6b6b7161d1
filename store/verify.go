package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codexhost/codexhost/model"
)

// VerifyReport is what Verify found in a home's database.
type VerifyReport struct {
	Dir string `json:"dir"`
	// Held: a runtime holds the database; the check read its files beside it (tables are
	// immutable once written, so what it read is what badger reads).
	Held bool `json:"held"`
	// Unlisted are table files the MANIFEST does not list; the next Open moves them to
	// SetAsideDir.
	Unlisted []string     `json:"unlisted,omitempty"`
	Error    *model.Error `json:"error,omitempty"`
}

// Verify checks the home's database the way Open does (MANIFEST, every table's checksums)
// without changing anything, whether or not a runtime holds it.
func Verify(home string) VerifyReport {
	dir := filepath.Join(home, DBDir)
	rep := VerifyReport{Dir: dir}
	if err := checkPrivateDirs(home, dir); err != nil {
		rep.Error = model.AsError(err)
		return rep
	}
	if _, ok, err := exists(dir); err != nil || !ok {
		if err != nil {
			rep.Error = model.AsError(err)
		}
		return rep
	}
	bo := badgerOptions(dir, Options{})
	check := func() error {
		return checkIntegrity(dir, bo, func(path string) error {
			rep.Unlisted = append(rep.Unlisted, filepath.Base(path))
			return nil
		})
	}
	err := withDirLock(dir, check)
	if errors.Is(err, ErrHeld) {
		rep.Held = true
		// A compaction meanwhile may remove a listed table: only damage seen twice counts.
		if err = check(); err != nil {
			rep.Unlisted = nil
			err = check()
		}
	}
	if err != nil {
		rep.Error = model.AsError(err)
	} else {
		rep.Error = checkLoss(home, dir)
	}
	return rep
}

// checkPrivateDirs checks the home and its database directory, those that exist, as Open
// does, creating nothing: a store Open would refuse is not reported healthy.
func checkPrivateDirs(home, dir string) error {
	for _, d := range []struct{ path, what string }{{home, "home"}, {dir, "database directory"}} {
		fi, err := os.Stat(d.path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: stat %s %s: %w", d.what, d.path, err)
		}
		if err := checkPrivateDir(d.path, fi, d.what); err != nil {
			return err
		}
	}
	return nil
}
