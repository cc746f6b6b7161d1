package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

var backupClock = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// A backup taken while writers go on is a consistent snapshot: restored, it holds every
// record committed before it started, and each record is whole.
func TestBackupWhileWritingRestoresIntoEmptyHome(t *testing.T) {
	t.Parallel()
	home := populatedHome(t)
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = s.Put("later", fmt.Sprintf("l%06d", i), note{Record{V: 1}, "during backup"})
		}
	}()
	file := filepath.Join(t.TempDir(), "home.backup")
	info, err := s.BackupTo(file, backupClock)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || info.Bytes != fi.Size() || info.Bytes == 0 {
		t.Fatalf("backup mode %v size %d, info %+v", fi.Mode().Perm(), fi.Size(), info)
	}
	last, ok, err := LastBackup(home)
	if err != nil || !ok || !last.At.Equal(backupClock) || last.Path != info.Path {
		t.Fatalf("LastBackup = %+v %v %v", last, ok, err)
	}

	fresh := filepath.Join(t.TempDir(), "fresh")
	rinfo, err := Restore(fresh, file, RestoreOptions{}, backupClock)
	if err != nil {
		t.Fatal(err)
	}
	if rinfo.Replaced != "" {
		t.Fatalf("restore into a new home replaced %s", rinfo.Replaced)
	}
	r, err := Open(fresh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := countNotes(t, r); n != damageRecords {
		t.Fatalf("restored %d notes, want %d", n, damageRecords)
	}
	var got note
	if err := r.Get("note", "n00042", &got); err != nil || got.Text == "" {
		t.Fatalf("restored record n00042 = %+v, %v", got, err)
	}
}

// Restore refuses a home whose database holds records unless told to replace it, and then
// keeps the old database beside the new one; it refuses a held home in every case.
func TestRestoreRefusesNonEmptyAndHeldHomes(t *testing.T) {
	t.Parallel()
	src := populatedHome(t)
	file := backupOf(t, src)

	target := filepath.Join(t.TempDir(), "target")
	ts, err := Open(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Put("note", "own", note{Record{V: 1}, "target's own"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(target, file, RestoreOptions{Replace: true}, backupClock); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("restore into a held home: %v, want FAILED_PRECONDITION", err)
	}
	_ = ts.Close()
	if _, err := Restore(target, file, RestoreOptions{}, backupClock); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("restore over records without replace: %v, want FAILED_PRECONDITION", err)
	}
	info, err := Restore(target, file, RestoreOptions{Replace: true}, backupClock)
	if err != nil {
		t.Fatal(err)
	}
	if info.Records == 0 || info.Replaced == "" {
		t.Fatalf("restore info %+v", info)
	}
	old, err := os.ReadDir(info.Replaced)
	if err != nil || len(old) == 0 {
		t.Fatalf("the replaced database is gone: %v", err)
	}
	wantAllNotes(t, target)
}

// Restore is the way out of a damaged store: with replace it puts the backup in place.
func TestRestoreReplacesDamagedStore(t *testing.T) {
	t.Parallel()
	home := populatedHome(t)
	file := backupOf(t, home)
	if err := os.Remove(filepath.Join(home, DBDir, "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	if rep := Verify(home); rep.Error == nil || rep.Error.Code != model.CodeStoreDamaged {
		t.Fatalf("Verify of a damaged store = %+v", rep)
	}
	if _, err := Restore(home, file, RestoreOptions{}, backupClock); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("restore over a damaged store without replace: %v", err)
	}
	if _, err := Restore(home, file, RestoreOptions{Replace: true}, backupClock); err != nil {
		t.Fatal(err)
	}
	if rep := Verify(home); rep.Error != nil {
		t.Fatalf("Verify after restore: %+v", rep.Error)
	}
	wantAllNotes(t, home)
}

// Verify reads a database that a runtime holds without disturbing it.
func TestVerifyHeldStore(t *testing.T) {
	t.Parallel()
	home := populatedHome(t)
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep := Verify(home)
	if !rep.Held || rep.Error != nil {
		t.Fatalf("Verify of a held healthy store = %+v", rep)
	}
	if n := countNotes(t, s); n != damageRecords {
		t.Fatalf("store has %d notes after Verify", n)
	}
}

// backupOf backs the store of home up into a new file and returns its path.
func backupOf(t *testing.T, home string) string {
	t.Helper()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	file := filepath.Join(t.TempDir(), "b")
	if _, err := s.BackupTo(file, backupClock); err != nil {
		t.Fatal(err)
	}
	return file
}

// wantAllNotes checks that the store of home holds every note populatedHome wrote.
func wantAllNotes(t *testing.T, home string) {
	t.Helper()
	r, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := countNotes(t, r); n != damageRecords {
		t.Fatalf("restored %d notes, want %d", n, damageRecords)
	}
}
