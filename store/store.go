// Package store keeps codexhost's durable records in a badger v4 database under the home
// directory (CODEXHOST_HOME). Records are versioned JSON objects under key prefixes
// ("<prefix>/<id>"); readers keep fields and ignore prefixes they do not know, so an older
// binary can read and rewrite what a newer one wrote without losing anything.
//
// Only one process may hold a home's database at a time (badger takes a flock on it); Open
// reports a second holder with ErrHeld so the caller can talk to the first one instead.
package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/model"
)

// DBDir is the database directory inside the home.
const DBDir = "db"

// Sentinel errors; check them with errors.Is.
var (
	// ErrNotFound: no record under the key.
	ErrNotFound = errors.New("store: record not found")
	// ErrConflict: a concurrent transaction changed a key this one read; run it again
	// (UpdateRetry does).
	ErrConflict = errors.New("store: transaction conflict")
	// ErrClosed: the store was closed before the call.
	ErrClosed = errors.New("store: closed")
	// ErrHeld: another process holds the home's database. The error is also a *model.Error
	// with code FAILED_PRECONDITION.
	ErrHeld = errors.New("store: home held by another runtime")
)

// Options tune Open. The zero value is what the runtime uses.
type Options struct {
	// Log receives badger's warnings and errors, one line each. Nil discards them: badger's
	// informational chatter must never reach a terminal app's screen.
	Log io.Writer

	// For tests: adjust badger's options after ours, and the permission sweep period.
	tune          func(*badger.Options)
	sweepInterval time.Duration
}

// defaultSweepInterval bounds how long a file badger creates after Open (new memtable, table,
// value log) can keep group/other bits; see perm.go.
const defaultSweepInterval = 2 * time.Second

// Store is an open home database. It is safe for concurrent use.
type Store struct {
	db   *badger.DB
	home string
	dir  string
	log  badger.Logger

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
	commitMu sync.RWMutex // see commit

	closeOnce sync.Once
	closeErr  error
	stopSweep chan struct{}
	sweepDone chan struct{}
	ledger    memLedger // the memtable ledger last written (see memledger.go); the sweeper's
}

// Open opens (creating if needed) the database of the home directory home. The home is
// created 0700; an existing home, or its db directory, that is not owned by this user or that
// gives group/other any access is refused with PERMISSION_DENIED. When another process holds
// the database the error is FAILED_PRECONDITION and matches ErrHeld.
func Open(home string, opts Options) (*Store, error) {
	if home == "" {
		return nil, model.Errorf(model.CodeInvalidArgument, "set CODEXHOST_HOME or use the default ~/.codexhost",
			"the home directory path is empty")
	}
	home, err := filepath.Abs(home)
	if err != nil {
		return nil, fmt.Errorf("store: resolve home %q: %w", home, err)
	}
	if err := ensurePrivateDir(home, true); err != nil {
		return nil, err
	}
	dir := filepath.Join(home, DBDir)
	if err := ensurePrivateDir(dir, false); err != nil {
		return nil, err
	}
	bo := badgerOptions(dir, opts)
	// Take badger's own lock first (badger's error for it is a flattened string) and, while
	// holding it, refuse a damaged database before badger would drop data from it.
	if err := withDirLock(dir, func() error { return checkOpenable(home, dir, bo) }); err != nil {
		return nil, err
	}
	db, err := openBadger(dir, bo)
	if err != nil {
		if isBadgerLockError(err) {
			return nil, heldError(dir)
		}
		if model.IsCode(err, model.CodeStoreDamaged) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOSPC) {
			return nil, err
		}
		return nil, damaged(dir, "%v", err)
	}
	s := &Store{db: db, home: home, dir: dir, log: bo.Logger,
		stopSweep: make(chan struct{}), sweepDone: make(chan struct{})}
	// Files left by an earlier run without the umask (or copied in) are fixed now, the ones
	// badger creates while open by the sweeper, and whatever Close writes by Close.
	if err := sweepModes(dir); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := writeLedger(dir, &s.ledger); err != nil {
		_ = db.Close()
		return nil, err
	}
	interval := opts.sweepInterval
	if interval <= 0 {
		interval = defaultSweepInterval
	}
	go s.sweeper(interval)
	return s, nil
}

// checkOpenable refuses a damaged database before badger would drop data from it, and notes
// writes lost with a memtable file (badger would open what is left without a word).
func checkOpenable(home, dir string, bo badger.Options) error {
	if err := checkIntegrity(dir, bo, func(path string) error { return setAside(dir, path) }); err != nil {
		return err
	}
	lost, err := lostMemtables(dir)
	if err != nil || len(lost) == 0 {
		return err
	}
	return noteLoss(home, lost, time.Now())
}

func badgerOptions(dir string, opts Options) badger.Options {
	bo := badger.DefaultOptions(dir).
		WithLogger(newQuietLogger(opts.Log)).
		WithMetricsEnabled(false).
		// Small footprint: our records are a few hundred bytes and the runtime shares a
		// laptop with the agents it runs.
		WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(8).
		WithBlockCacheSize(8 << 20).
		WithIndexCacheSize(0).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithValueLogFileSize(32 << 20).
		// Keep values in the LSM tree (records are small); only values above this go to the
		// value log. Must stay below 15% of the memtable size.
		WithValueThreshold(64 << 10).
		WithDetectConflicts(true)
	if opts.tune != nil {
		opts.tune(&bo)
	}
	return bo
}

// Home returns the absolute home directory.
func (s *Store) Home() string { return s.home }

// Dir returns the absolute database directory.
func (s *Store) Dir() string { return s.dir }

// Close waits for calls in progress, closes the database and releases the home. It is
// idempotent and safe to call concurrently; later calls return the first one's result.
// Calls made after Close has started fail with ErrClosed. Close must not be called from inside
// a View, Update or Scan callback: it would wait for that very call.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.inflight.Wait()
		close(s.stopSweep)
		<-s.sweepDone
		err := s.db.Close()
		// Close flushes memtables into new tables: fix their modes too.
		if serr := sweepModes(s.dir); err == nil {
			err = serr
		}
		if lerr := writeLedger(s.dir, nil); err == nil {
			err = lerr
		}
		if err != nil {
			s.closeErr = fmt.Errorf("store: close %s: %w", s.dir, err)
		}
	})
	return s.closeErr
}

// enter registers a call in progress so Close waits for it. It does not block, so a Scan
// callback may call the store again without deadlocking against a concurrent Close.
func (s *Store) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.inflight.Add(1)
	return nil
}

func (s *Store) leave() { s.inflight.Done() }

// quietLogger passes badger's warnings and errors to w and drops the rest.
type quietLogger struct {
	mu sync.Mutex
	w  io.Writer
}

func newQuietLogger(w io.Writer) badger.Logger {
	if w == nil {
		w = io.Discard
	}
	return &quietLogger{w: w}
}

func (l *quietLogger) write(level, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if n := len(msg); n > 0 && msg[n-1] == '\n' {
		msg = msg[:n-1]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "badger %s: %s\n", level, msg)
}

func (l *quietLogger) Errorf(format string, args ...any)   { l.write("ERROR", format, args...) }
func (l *quietLogger) Warningf(format string, args ...any) { l.write("WARNING", format, args...) }
func (l *quietLogger) Infof(string, ...any)                {}
func (l *quietLogger) Debugf(string, ...any)               {}

// exists stats path, telling "missing" apart from other failures.
func exists(path string) (os.FileInfo, bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return fi, true, nil
}
