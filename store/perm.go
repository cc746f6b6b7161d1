package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/internal/shquote"
	"github.com/codexhost/codexhost/model"
)

// Badger creates its LOCK, DISCARD, memtable (.mem), table (.sst) and value log (.vlog) files
// with mode 0666 and leaves the rest to the umask (only MANIFEST and KEYREGISTRY are 0600), so
// under the usual umask 022 they come out 0644. Two measures keep them 0600:
//
//   - Open runs badger.Open under umask 077, so every file of a fresh or reopened database is
//     0600 from birth. The umask is process-global, so it is set only for the length of the
//     call and restored after: leaving it at 077 would be inherited by every process the
//     runtime starts (App Server, agent shell commands) and would make the files agents write
//     in the user's workspaces 0600.
//   - Files badger creates later (memtable rotation, flushes, compactions) are fixed by a
//     sweep every few seconds and once more after Close. Until then they sit inside the 0700
//     db directory of a 0700 home, which no other user can enter.

// umaskMu serialises the umask window so that two concurrent Opens cannot restore each other's
// temporary umask and leave 077 behind.
var umaskMu sync.Mutex

func openWithPrivateUmask(bo badger.Options) (*badger.DB, error) {
	umaskMu.Lock()
	defer umaskMu.Unlock()
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	return badger.Open(bo)
}

// ensurePrivateDir creates dir 0700 when missing (its parents too, also 0700) and otherwise
// checks that it is a directory owned by this user with no group/other access.
func ensurePrivateDir(dir string, isHome bool) error {
	what := "database directory"
	if isHome {
		what = "home"
	}
	fi, ok, err := exists(dir)
	if err != nil {
		return fmt.Errorf("store: stat %s %s: %w", what, dir, err)
	}
	if !ok {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return fmt.Errorf("store: create parent of %s %s: %w", what, dir, err)
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("store: create %s %s: %w", what, dir, err)
		} else if err == nil {
			// Mkdir applies the umask; make the mode exact whatever the umask was.
			if err := os.Chmod(dir, 0o700); err != nil {
				return fmt.Errorf("store: chmod %s %s: %w", what, dir, err)
			}
		}
		if fi, err = os.Stat(dir); err != nil {
			return fmt.Errorf("store: stat %s %s: %w", what, dir, err)
		}
	}
	return checkPrivateDir(dir, fi, what)
}

// checkPrivateDir refuses dir unless it is a directory owned by this user with no group/other
// access; what names it in the error ("home", "database directory").
func checkPrivateDir(dir string, fi os.FileInfo, what string) error {
	if !fi.IsDir() {
		return model.Errorf(model.CodeFailedPrecondition,
			fmt.Sprintf("move %s away, or set CODEXHOST_HOME to a directory", dir),
			"%s %s is not a directory", what, dir).WithDetail("path", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return model.Errorf(model.CodePermissionDenied,
			fmt.Sprintf("use a home of your own (set CODEXHOST_HOME), or have its owner run: chown -R %d %s", os.Geteuid(), shquote.Quote(dir)),
			"%s %s is owned by uid %d, not by this user (uid %d)", what, dir, st.Uid, os.Geteuid()).
			WithDetail("path", dir).WithDetail("owner_uid", int(st.Uid))
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		mode := fmt.Sprintf("%#o", perm)
		return model.Errorf(model.CodePermissionDenied,
			"run: chmod 700 "+shquote.Quote(dir),
			"%s %s has mode %s: group and others must have no access to it", what, dir, mode).
			WithDetail("path", dir).WithDetail("mode", mode)
	}
	return nil
}

// isEmptyMemtableError matches badger's z.NewFile sentinel ("Create a new file"), which it
// returns while opening an empty memtable file.
func isEmptyMemtableError(err error) bool {
	return strings.Contains(err.Error(), "Create a new file")
}

func isBadgerLockError(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock")
}

// heldErr is both the *model.Error callers show and ErrHeld callers branch on.
type heldErr struct{ me *model.Error }

func (e *heldErr) Error() string   { return e.me.Error() }
func (e *heldErr) Unwrap() []error { return []error{e.me, ErrHeld} }

func heldError(dir string) error {
	home := filepath.Dir(dir)
	// Badger writes its pid into LOCK; it is advisory (stale after a crash), hence "probably".
	pid := 0
	if b, err := os.ReadFile(filepath.Join(dir, "LOCK")); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	me := model.Errorf(model.CodeFailedPrecondition,
		"use the runtime that is running, or stop it and try again",
		"another codexhost runtime holds the home %s", home).WithDetail("path", home)
	if pid > 0 {
		me = model.Errorf(model.CodeFailedPrecondition,
			fmt.Sprintf("use the runtime that is running, or stop it (probably pid %d) and try again", pid),
			"another codexhost runtime (pid %d) holds the home %s", pid, home).
			WithDetail("path", home).WithDetail("pid", pid)
	}
	return &heldErr{me: me}
}

// sweepModes removes group/other bits from every directory and regular file under dir.
// Files that vanish meanwhile (badger deletes tables and memtables) are skipped.
func sweepModes(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil
			}
			return fmt.Errorf("store: fix modes under %s: %w", dir, err)
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil // never chmod through a symlink
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: fix modes under %s: %w", dir, err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(path, perm&^0o077); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("store: fix modes under %s: %w", dir, err)
			}
		}
		return nil
	})
}

func (s *Store) sweeper(interval time.Duration) {
	defer close(s.sweepDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stopSweep:
			return
		case <-t.C:
			if err := sweepModes(s.dir); err != nil {
				s.log.Warningf("%v", err)
			}
			if err := writeLedger(s.dir, &s.ledger); err != nil {
				s.log.Warningf("%v", err)
			}
		}
	}
}
