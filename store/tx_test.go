package store

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

type counter struct {
	Record
	N int `json:"n"`
}

func TestConflictSurfacesAsErrConflict(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	if err := s.Put("ctr", "c", counter{Record{V: 1}, 0}); err != nil {
		t.Fatal(err)
	}
	err := s.Update(func(tx *Tx) error {
		var c counter
		if err := tx.Get("ctr", "c", &c); err != nil {
			return err
		}
		// Another writer commits between our read and our commit.
		if err := s.Put("ctr", "c", counter{Record{V: 1}, 100}); err != nil {
			return err
		}
		c.N++
		return tx.Put("ctr", "c", &c)
	})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("err %v, want ErrConflict", err)
	}
	var c counter
	if err := s.Get("ctr", "c", &c); err != nil || c.N != 100 {
		t.Fatalf("after conflict: %+v %v; the losing write must not land", c, err)
	}
}

func TestUpdateRetryConcurrentIncrements(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	if err := s.Put("ctr", "c", counter{Record{V: 1}, 0}); err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 40
	var attempts atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				err := s.UpdateRetry(func(tx *Tx) error {
					attempts.Add(1)
					var c counter
					if err := tx.Get("ctr", "c", &c); err != nil {
						return err
					}
					c.N++
					return tx.Put("ctr", "c", &c)
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	var c counter
	if err := s.Get("ctr", "c", &c); err != nil {
		t.Fatal(err)
	}
	if c.N != workers*each {
		t.Fatalf("count %d, want %d", c.N, workers*each)
	}
	t.Logf("%d increments took %d attempts", workers*each, attempts.Load())
}

func TestUpdateRetryGivesUp(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	calls := 0
	err := s.UpdateRetry(func(*Tx) error { calls++; return ErrConflict })
	if !errors.Is(err, ErrConflict) || calls != UpdateAttempts {
		t.Fatalf("err %v after %d calls, want ErrConflict after %d", err, calls, UpdateAttempts)
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	boom := errors.New("boom")
	err := s.Update(func(tx *Tx) error {
		if err := tx.Put("ctr", "c", counter{Record{V: 1}, 1}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	var c counter
	if err := s.Get("ctr", "c", &c); !errors.Is(err, ErrNotFound) {
		t.Fatalf("write of a failed transaction landed: %+v %v", c, err)
	}
	if err := s.View(func(tx *Tx) error { return tx.Put("ctr", "c", counter{Record{V: 1}, 1}) }); err == nil {
		t.Fatal("a View transaction accepted a write")
	}
}

// A PutSync'd record is there after the writer is SIGKILLed right after the call returned; so
// is a plain Put, which is committed though not synced.
func TestPutSyncSurvivesKill(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	c := startChild(t, "putsync", home, "synced")
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if ws := c.wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed", ws)
	}
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	for id, text := range map[string]string{"synced": "synced", "plain": "committed"} {
		var n note
		if err := s.Get("note", id, &n); err != nil || n.Text != text {
			t.Errorf("record %s after kill: %+v %v", id, n, err)
		}
	}
}
