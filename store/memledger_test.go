package store

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// lossThreads is how many records the "threads" child writes before it is killed.
const lossThreads = 31

// crashAfterThreads runs the "threads" child on a fresh home and SIGKILLs it once its records
// are committed (in the memtable, not in a table).
func crashAfterThreads(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	c := startChild(t, "threads", home, "written")
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if ws := c.wait(t); !ws.Signaled() {
		t.Fatalf("child ended with %v, want killed", ws)
	}
	return home
}

func countThreads(t *testing.T, home string) int {
	t.Helper()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	if err := s.View(func(tx *Tx) error {
		it := tx.txn.NewIterator(badgerKeysOnly())
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if strings.HasPrefix(string(it.Item().Key()), "thread/") {
				n++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// After a SIGKILL, a deleted memtable file takes the last writes with it: Verify (doctor)
// says so instead of ok, before the next Open and after it, until a restore.
func TestVerifyReportsWritesLostWithAMemtableFile(t *testing.T) {
	t.Parallel()
	home := crashAfterThreads(t)
	dir := filepath.Join(home, DBDir)
	mems, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	if len(mems) == 0 {
		t.Fatal("no memtable file after the crash")
	}
	for _, m := range mems {
		if err := os.Remove(m); err != nil {
			t.Fatal(err)
		}
	}
	rep := Verify(home)
	if rep.Error == nil || rep.Error.Code != model.CodeStoreDamaged || !strings.Contains(rep.Error.Message, ".mem") {
		t.Fatalf("Verify after a lost memtable = %+v", rep.Error)
	}
	// The runtime starts on what is left; the loss is still reported afterwards.
	if n := countThreads(t, home); n == lossThreads {
		t.Fatalf("all %d threads are there: the memtable file held none", n)
	}
	if rep := Verify(home); rep.Error == nil || rep.Error.Code != model.CodeStoreDamaged {
		t.Fatalf("Verify after the store was opened on what was left = %+v", rep.Error)
	}
	// A restore is the way out, and ends the report.
	file := backupOf(t, populatedHome(t))
	if _, err := Restore(home, file, RestoreOptions{Replace: true}, backupClock); err != nil {
		t.Fatal(err)
	}
	if rep := Verify(home); rep.Error != nil {
		t.Fatalf("Verify after restore = %+v", rep.Error)
	}
}

// A SIGKILL alone loses nothing and is not reported: badger replays its memtable file.
func TestVerifyAfterAKillWithItsMemtableIsOK(t *testing.T) {
	t.Parallel()
	home := crashAfterThreads(t)
	if rep := Verify(home); rep.Error != nil {
		t.Fatalf("Verify after a kill = %+v", rep.Error)
	}
	if n := countThreads(t, home); n != lossThreads {
		t.Fatalf("%d threads after the kill, want %d", n, lossThreads)
	}
	for range 2 { // a clean close and reopen, twice
		if rep := Verify(home); rep.Error != nil {
			t.Fatalf("Verify after a clean close = %+v", rep.Error)
		}
		countThreads(t, home)
	}
}
