package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/codexhost/codexhost/model"
)

// Badger recovers from damage by dropping data: without a MANIFEST it starts empty and
// deletes every table, a table that fails its checksum is skipped ("Ignoring table"), and a
// truncated table panics. The checks here run before badger sees the directory, while this
// process holds the directory's flock, and refuse a damaged store instead.

// SetAsideDir is where Open moves table files that the MANIFEST does not list (left by a crash
// between writing a table and recording it) instead of letting badger delete them.
const SetAsideDir = "db-set-aside"

// vlogHeaderSize is the size of a value log's header (badger's value.go).
const vlogHeaderSize = 20

// restoreHint is the way out of a damaged store, named in every STORE_DAMAGED error.
const restoreHint = "stop every codexhost runtime on this home and run `codexhost restore --replace FILE` with a backup (%s is kept beside the restored database); `codexhost doctor` checks the store"

// damaged builds the STORE_DAMAGED error for dir.
func damaged(dir, format string, args ...any) *model.Error {
	return model.Errorf(model.CodeStoreDamaged, fmt.Sprintf(restoreHint, dir),
		"the database %s is damaged and was not opened: %s", dir, fmt.Sprintf(format, args...)).
		WithDetail("path", dir)
}

// withDirLock runs fn while holding the flock badger takes on dir, reporting a holder as
// ErrHeld. flock conflicts between open files, so this also catches a second Open in the same
// process.
func withDirLock(dir string, fn func() error) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := flockReleased(fd, dir); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return heldError(dir)
		}
		return fmt.Errorf("store: lock %s: %w", dir, err)
	}
	defer func() { _ = syscall.Flock(fd, syscall.LOCK_UN) }()
	return fn()
}

// releaseGrace bounds how long a lock whose holder has released it may still be kept.
const releaseGrace = 2 * time.Second

// flockReleased takes the directory's flock, waiting out a lock its holder has released but
// a child still keeps: badger releases its lock by removing LOCK and closing the descriptor
// without unlocking, so a child forked by another goroutine of this process keeps the lock
// until it execs (the descriptor is close-on-exec). Such a lock has no LOCK file; a live
// holder has its pid there and is reported at once.
func flockReleased(fd int, dir string) error {
	deadline := time.Now().Add(releaseGrace)
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || !releasedLock(dir) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// releasedLock reports whether dir's lock has no holder of record: badger removes LOCK
// before it closes the descriptor, and writes it once it holds the lock.
func releasedLock(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "LOCK"))
	return errors.Is(err, fs.ErrNotExist)
}

// dbFiles lists the table ids and the value-log files of a database directory.
type dbFiles struct {
	tables      map[uint64]string
	valueLogs   []string
	hasManifest bool
}

func listDBFiles(dir string) (dbFiles, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return dbFiles{}, fmt.Errorf("store: list %s: %w", dir, err)
	}
	files := dbFiles{tables: map[uint64]string{}}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == badger.ManifestFilename:
			files.hasManifest = true
		case strings.HasSuffix(name, ".sst"):
			if id, ok := table.ParseFileID(name); ok {
				files.tables[id] = filepath.Join(dir, name)
			}
		case strings.HasSuffix(name, ".vlog"):
			// A value log holding only its header (a fresh or emptied one) holds no data.
			if fi, err := e.Info(); err == nil && fi.Size() > vlogHeaderSize {
				files.valueLogs = append(files.valueLogs, name)
			}
		}
	}
	return files, nil
}

// checkIntegrity refuses a damaged database directory and hands each table the MANIFEST does
// not list to unlisted (Open moves them aside). It never writes inside dir itself.
func checkIntegrity(dir string, bo badger.Options, unlisted func(path string) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = damaged(dir, "checking it failed: %v", r)
		}
	}()
	files, err := listDBFiles(dir)
	if err != nil {
		return err
	}
	if !files.hasManifest {
		if len(files.tables) > 0 || len(files.valueLogs) > 0 {
			return damaged(dir, "its MANIFEST is missing while %d table file(s) and %d value log(s) remain",
				len(files.tables), len(files.valueLogs))
		}
		return nil // a fresh database
	}
	mf, err := readManifest(dir, bo)
	if err != nil {
		return damaged(dir, "its MANIFEST cannot be read: %v", err)
	}
	var missing []string
	for id := range mf.Tables {
		if _, ok := files.tables[id]; !ok {
			missing = append(missing, table.IDToFilename(id))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return damaged(dir, "table file(s) listed in its MANIFEST are missing: %s", strings.Join(missing, ", "))
	}
	for id, path := range files.tables {
		tm, listed := mf.Tables[id]
		if !listed {
			if err := unlisted(path); err != nil {
				return err
			}
			continue
		}
		if err := verifyTable(path, tm, bo); err != nil {
			return damaged(dir, "table %s fails its checks: %v", filepath.Base(path), err)
		}
	}
	return nil
}

func readManifest(dir string, bo badger.Options) (badger.Manifest, error) {
	f, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return badger.Manifest{}, err
	}
	defer f.Close()
	m, _, err := badger.ReplayManifestFile(f, bo.ExternalMagicVersion, bo)
	return m, err
}

// verifyTable opens one table read-only and checks every block's checksum. Badger panics on
// some damage (a truncated index); that is reported as an error.
func verifyTable(path string, tm badger.TableManifest, bo badger.Options) (err error) {
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			// Badger's checksum walk dereferences the block it failed to read.
			err = errors.New("a block or the index cannot be read")
			if detail := fmt.Sprint(r); detail != "" {
				err = fmt.Errorf("%w (%s)", err, detail)
			}
		}
		// Close(-1): never truncate; Table.DecrRef would delete the file.
		_ = mf.Close(-1)
	}()
	if len(mf.Data) == 0 {
		return errors.New("the file is empty")
	}
	_, err = table.OpenTable(mf, table.Options{
		ReadOnly:    true,
		ChkMode:     options.OnTableRead,
		Compression: tm.Compression,
		BlockSize:   bo.BlockSize,
	})
	return err
}

// setAside moves a table the MANIFEST does not list out of the database directory dir.
func setAside(dir, path string) error {
	aside := filepath.Join(filepath.Dir(dir), SetAsideDir)
	if err := os.MkdirAll(aside, 0o700); err != nil {
		return fmt.Errorf("store: create %s: %w", aside, err)
	}
	dest := filepath.Join(aside, fmt.Sprintf("%s-%s", time.Now().UTC().Format("20060102T150405Z"), filepath.Base(path)))
	if err := os.Rename(path, dest); err != nil {
		return fmt.Errorf("store: set aside unlisted table %s: %w", path, err)
	}
	return nil
}

// openDamageWatch records badger's log lines that report damage during Open: a table it
// skipped for a bad checksum, or a log it truncated.
type openDamageWatch struct {
	badger.Logger
	lines chan string
}

func newOpenDamageWatch(inner badger.Logger) *openDamageWatch {
	return &openDamageWatch{Logger: inner, lines: make(chan string, 16)}
}

func (w *openDamageWatch) Errorf(format string, args ...any) {
	w.note(fmt.Sprintf(format, args...))
	w.Logger.Errorf(format, args...)
}

func (w *openDamageWatch) Warningf(format string, args ...any) {
	w.note(fmt.Sprintf(format, args...))
	w.Logger.Warningf(format, args...)
}

func (w *openDamageWatch) note(msg string) {
	lower := strings.ToLower(msg)
	if strings.Contains(lower, "checksum") || strings.Contains(lower, "ignoring table") || strings.Contains(lower, "truncat") {
		select {
		case w.lines <- strings.TrimSpace(msg):
		default:
		}
	}
}

// first returns the first damage line seen, if any.
func (w *openDamageWatch) first() (string, bool) {
	select {
	case l := <-w.lines:
		return l, true
	default:
		return "", false
	}
}

// openBadger opens the database, turning panics and damage reported on badger's log into
// STORE_DAMAGED. It closes a database opened with damage reported so nothing more is written.
func openBadger(dir string, bo badger.Options) (db *badger.DB, err error) {
	watch := newOpenDamageWatch(bo.Logger)
	bo.Logger = watch
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, damaged(dir, "opening it failed: %v", r)
		}
	}()
	db, err = openWithPrivateUmask(bo)
	if err != nil && isEmptyMemtableError(err) {
		// A crash between creating a memtable file and sizing it leaves it empty; badger's
		// failed open sized it, so the second open works (dgraph-io/badger#2207).
		db, err = openWithPrivateUmask(bo)
	}
	if err != nil {
		return nil, err
	}
	if line, bad := watch.first(); bad {
		_ = db.Close()
		return nil, damaged(dir, "badger reported: %s", line)
	}
	return db, nil
}

// recoverDamage turns a panic inside badger into a STORE_DAMAGED error in *err. Deferred only
// around badger calls, never around callers' code.
func recoverDamage(err *error, what string) {
	if r := recover(); r != nil {
		*err = model.Errorf(model.CodeStoreDamaged, "stop the runtime and run `codexhost doctor`; restore a backup with `codexhost restore --replace FILE`",
			"the database failed while %s: %v", what, r)
	}
}
