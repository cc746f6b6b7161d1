package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// A backup holds the database, not the transcripts of external-harness threads, from which
// those threads are read: a restore into a home without them says how many are missing
// (native threads have none; a thread whose transcript is there is not counted).
func TestRestoreCountsExternalThreadsWithoutTranscript(t *testing.T) {
	t.Parallel()
	old := filepath.Join(t.TempDir(), "old")
	s, err := Open(old, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []model.ThreadRecord{
		{V: 1, ID: "01a249d8-0000-7000-8000-000000000001", Harness: "sh", CreatedAt: backupClock},
		{V: 1, ID: "01a249d8-0000-7000-8000-000000000002", Harness: "sh", CreatedAt: backupClock},
		{V: 1, ID: "01a249d8-0000-7000-8000-000000000003", Harness: model.NativeHarness, CreatedAt: backupClock},
	} {
		if err := s.PutThread(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	file := backupOf(t, old)

	fresh := filepath.Join(t.TempDir(), "fresh")
	if err := os.MkdirAll(filepath.Join(fresh, TranscriptsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(fresh, 0o700); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(fresh, TranscriptsDir, "01a249d8-0000-7000-8000-000000000002.jsonl")
	if err := os.WriteFile(kept, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := Restore(fresh, file, RestoreOptions{}, backupClock)
	if err != nil {
		t.Fatal(err)
	}
	if info.MissingTranscripts != 1 {
		t.Fatalf("MissingTranscripts = %d, want 1 (one sh thread without its file)", info.MissingTranscripts)
	}
}
