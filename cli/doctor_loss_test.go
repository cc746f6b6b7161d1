package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/store"
)

type lossRecord struct {
	store.Record
	Text string `json:"text"`
}

// copyDir copies the files of src into dst (0700), as a crash would leave them: what the
// open database holds right now, memtable files included.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o700); err != nil { // the home too, 0700 as Open wants it
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// A store whose last writes went with a deleted memtable file: doctor reports the loss and
// exits non-zero instead of saying ok.
func TestDoctorReportsWritesLostWithAMemtableFile(t *testing.T) {
	t.Parallel()
	live := filepath.Join(t.TempDir(), "live")
	s, err := store.Open(live, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 31 {
		if err := s.Put("thread", fmt.Sprintf("t%02d", i), lossRecord{store.Record{V: 1}, "a thread"}); err != nil {
			t.Fatal(err)
		}
	}
	crashed := filepath.Join(t.TempDir(), "crashed")
	copyDir(t, filepath.Join(live, store.DBDir), filepath.Join(crashed, store.DBDir))
	_ = s.Close()
	mems, _ := filepath.Glob(filepath.Join(crashed, store.DBDir, "*.mem"))
	if len(mems) == 0 {
		t.Fatal("no memtable file in the crashed copy")
	}
	for _, m := range mems {
		_ = os.Remove(m)
	}
	doctorHome(t)
	setenv(t, envHome, crashed)
	out, _, code := run(t, "doctor")
	if code == 0 || strings.HasSuffix(out, "\nok\n") || !strings.Contains(out, "STORE_DAMAGED") || !strings.Contains(out, "memtable") {
		t.Fatalf("doctor after a lost memtable: exit %d\n%s", code, out)
	}
}
