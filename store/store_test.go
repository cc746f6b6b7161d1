package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/model"
)

func TestOpenCreatesPrivateHomeAndFiles(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "parent", "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := s.PutSync("note", fmt.Sprint(i), note{Record{V: 1}, "text"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := modeOf(t, home); got != 0o700 {
		t.Errorf("home mode %#o, want 0700", got)
	}
	if got := modeOf(t, filepath.Dir(home)); got&0o077 != 0 {
		t.Errorf("created parent mode %#o, want no group/other access", got)
	}
	if got := modeOf(t, s.Dir()); got != 0o700 {
		t.Errorf("db mode %#o, want 0700", got)
	}
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 3 {
		t.Fatalf("db dir holds %d entries; expected badger's files", len(entries))
	}
	if loose := looseModes(t, home); len(loose) > 0 {
		t.Errorf("while open, group/other can access:\n%s", strings.Join(loose, "\n"))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if loose := looseModes(t, home); len(loose) > 0 {
		t.Errorf("after Close, group/other can access:\n%s", strings.Join(loose, "\n"))
	}
}

// Files badger creates after Open (memtable rotation, flushed tables) are born 0644 under
// umask 022; the sweeper must fix them while the store is open.
// Serial: another test's Open holds the process's umask at 077 for a moment, and files born
// then would be private without the sweeper.
func TestFilesCreatedWhileOpenAreSwept(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{
		tune: func(o *badger.Options) {
			*o = o.WithMemTableSize(1 << 20).WithValueThreshold(16 << 10)
		},
		sweepInterval: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := map[string]bool{}
	entries, _ := os.ReadDir(s.Dir())
	for _, e := range entries {
		before[e.Name()] = true
	}
	pad := strings.Repeat("x", 1000)
	for i := range 3000 {
		if err := s.Put("note", fmt.Sprintf("%05d", i), note{Record{V: 1}, pad}); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ = os.ReadDir(s.Dir())
	var created []string
	for _, e := range entries {
		if !before[e.Name()] {
			created = append(created, e.Name())
		}
	}
	if len(created) == 0 {
		t.Fatal("no file was created after Open; the test needs a memtable rotation")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		loose := looseModes(t, home)
		if len(loose) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("files created after Open (%v) still loose:\n%s", created, strings.Join(loose, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOpenFixesLooseFilesLeftBehind(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put("note", "a", note{Record{V: 1}, "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// As left by a binary that did not fix modes.
	entries, _ := os.ReadDir(s.Dir())
	for _, e := range entries {
		if err := os.Chmod(filepath.Join(s.Dir(), e.Name()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(looseModes(t, home)) == 0 {
		t.Fatal("setup: expected loose files")
	}
	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if loose := looseModes(t, home); len(loose) > 0 {
		t.Errorf("after reopen, group/other can access:\n%s", strings.Join(loose, "\n"))
	}
}

// A crash right after badger created a memtable file leaves it empty; the home must still open
// with its records (badger alone fails the first open of such a directory).
func TestOpenAfterCrashLeftEmptyMemtable(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put("note", "a", note{Record{V: 1}, "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "00009.mem"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = Open(home, Options{})
	if err != nil {
		t.Fatalf("open after an empty memtable was left: %v", err)
	}
	defer s.Close()
	var got note
	if err := s.Get("note", "a", &got); err != nil || got.Text != "a" {
		t.Errorf("record after reopen: %+v, %v", got, err)
	}
}

// Serial: the umask is the process's, and another test's Open would change it meanwhile.
func TestOpenRestoresUmask(t *testing.T) {
	s := openTemp(t)
	_ = s
	old := syscall.Umask(0o022)
	syscall.Umask(old)
	if old != 0o022 {
		t.Errorf("umask after Open is %#o, want the caller's 0022", old)
	}
}

func TestOpenRefusesOpenHome(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o755, 0o750, 0o701} {
		t.Run(fmt.Sprintf("%#o", mode), func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			if err := os.Mkdir(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(home, mode); err != nil {
				t.Fatal(err)
			}
			_, err := Open(home, Options{})
			me := asModelError(t, err, model.CodePermissionDenied)
			if !strings.Contains(me.Message, home) || !strings.Contains(me.Message, fmt.Sprintf("%#o", mode)) {
				t.Errorf("message %q should name %s and its mode", me.Message, home)
			}
			if me.Hint != "run: chmod 700 "+home {
				t.Errorf("hint %q should name the fix", me.Hint)
			}
			if _, err := os.Stat(filepath.Join(home, DBDir)); !os.IsNotExist(err) {
				t.Errorf("refused Open created the db dir: %v", err)
			}
		})
	}
}

func TestOpenRefusesOpenDBDir(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Open(home, Options{})
	me := asModelError(t, err, model.CodePermissionDenied)
	if !strings.Contains(me.Message, s.Dir()) || !strings.Contains(me.Hint, "chmod 700 "+s.Dir()) {
		t.Errorf("error should name the db dir and the fix: %v", err)
	}
}

func TestOpenRefusesHomeOfAnotherUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another uid")
	}
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, 65534, -1); err != nil {
		t.Fatal(err)
	}
	_, err := Open(home, Options{})
	me := asModelError(t, err, model.CodePermissionDenied)
	if !strings.Contains(me.Message, "uid 65534") || !strings.Contains(me.Hint, "CODEXHOST_HOME") {
		t.Errorf("error should name the owner and the fix: %v", err)
	}
}

func TestOpenRefusesFileAsHome(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.WriteFile(home, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(home, Options{})
	asModelError(t, err, model.CodeFailedPrecondition)
}

func checkHeld(t *testing.T, err error, home string, pid int) {
	t.Helper()
	if !errors.Is(err, ErrHeld) {
		t.Fatalf("err = %v, want ErrHeld", err)
	}
	me := asModelError(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(me.Message, "another codexhost runtime") || !strings.Contains(me.Message, home) {
		t.Errorf("message %q should say another runtime holds %s", me.Message, home)
	}
	if me.Details["pid"] != pid {
		t.Errorf("details %v, want pid %d", me.Details, pid)
	}
}

func TestSecondOpenInSameProcessIsHeld(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	_, err := Open(s.Home(), Options{})
	checkHeld(t, err, s.Home(), os.Getpid())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(s.Home(), Options{})
	if err != nil {
		t.Fatalf("open after the holder closed: %v", err)
	}
	_ = s2.Close()
}

func TestSecondOpenInAnotherProcessIsHeld(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	c := startChild(t, "hold", home, "ready")
	_, err := Open(home, Options{})
	checkHeld(t, err, home, c.cmd.Process.Pid)
	_ = c.stdin.Close()
	if ws := c.wait(t); ws.ExitStatus() != 0 {
		t.Fatalf("child exit %v", ws)
	}
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatalf("open after the holder exited: %v", err)
	}
	_ = s.Close()
}

// Open reports a lock lost to a race through badger's own error, which it recognises by text.
func TestBadgerLockErrorIsRecognised(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	db, err := openWithPrivateUmask(badgerOptions(s.Dir(), Options{}))
	if err == nil {
		_ = db.Close()
		t.Fatal("badger opened a held directory")
	}
	if !isBadgerLockError(err) {
		t.Fatalf("badger's lock error is no longer recognised: %v", err)
	}
}

func TestCloseIsIdempotentAndLaterCallsFail(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var n note
	for name, err := range map[string]error{
		"Get":    s.Get("note", "a", &n),
		"Put":    s.Put("note", "a", note{Record{V: 1}, "a"}),
		"Scan":   s.Scan("note", func(string, []byte) error { return nil }),
		"Update": s.UpdateRetry(func(*Tx) error { return nil }),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// A Scan callback may write; a concurrent Close waits for the scan and must not deadlock.
func TestCloseDuringScanDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	for i := range 3 {
		if err := s.Put("note", fmt.Sprint(i), note{Record{V: 1}, "a"}); err != nil {
			t.Fatal(err)
		}
	}
	closing := make(chan error, 1)
	err := s.Scan("note", func(id string, _ []byte) error {
		if id == "0" {
			go func() { closing <- s.Close() }()
			for !s.isClosing() {
				time.Sleep(time.Millisecond)
			}
		}
		err := s.Put("note", "x"+id, note{Record{V: 1}, "b"})
		if !errors.Is(err, ErrClosed) {
			t.Errorf("put during close: %v, want ErrClosed", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closing:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}

func TestBadgerInfoLogsStayQuiet(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s, err := Open(filepath.Join(t.TempDir(), "home"), Options{Log: &syncWriter{w: &buf}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put("note", "a", note{Record{V: 1}, "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("badger wrote on a clean open/close:\n%s", buf.String())
	}
	l := newQuietLogger(&buf)
	l.Infof("info %d", 1)
	l.Debugf("debug %d", 2)
	l.Warningf("disk %s\n", "slow")
	l.Errorf("broken %d", 3)
	if got, want := buf.String(), "badger WARNING: disk slow\nbadger ERROR: broken 3\n"; got != want {
		t.Errorf("logged %q, want %q", got, want)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (s *Store) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Open's umask window alone, before any sweep, gives badger's files 0600.
func TestBadgerOpensUnderPrivateUmask(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "db")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := openWithPrivateUmask(badgerOptions(dir, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if loose := looseModes(t, dir); len(loose) > 0 {
		t.Errorf("badger's files under the umask window:\n%s", strings.Join(loose, "\n"))
	}
}

// A store closed while another goroutine forks a child: badger closes its lock's descriptor
// without unlocking, so the child's copy keeps the flock until it execs. Opening the home
// again in that window waits the child out instead of reporting another runtime.
func TestReopenWaitsOutALockAChildStillKeeps(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The child's copy: a locked descriptor of the directory, as badger's was, with no LOCK
	// file (badger removed it on release).
	kept, err := os.Open(filepath.Join(home, DBDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(kept.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	execed := make(chan struct{})
	go func() {
		<-execed
		_ = kept.Close() // the exec closes it
	}()
	opened := make(chan error, 1)
	go func() {
		s, err := Open(home, Options{})
		if err == nil {
			err = s.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		t.Fatalf("Open returned while the lock was kept: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(execed)
	if err := <-opened; err != nil {
		t.Fatalf("reopen after the child let go: %v", err)
	}
}
