package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/store"
)

// backupHomeWithRecords makes a home whose database holds a few records.
func backupHomeWithRecords(t *testing.T) string {
	t.Helper()
	home := operatorHome(t, "/nonexistent/codex", t.TempDir())
	st, err := store.Open(home, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := st.Put("note", id, store.Record{V: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return home
}

// `backup` goes through the runtime that holds the home; `restore` refuses while it runs,
// refuses to overwrite records without --replace, and with it keeps the old database.
func TestBackupThroughRuntimeAndRestore(t *testing.T) {
	t.Parallel()
	home := backupHomeWithRecords(t)
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	host := serveRuntime(t, home, environ)
	file := filepath.Join(t.TempDir(), "home.backup")
	out, errOut, code := run(t, "backup", file, "--json")
	if code != 0 {
		t.Fatalf("backup: %s", errOut)
	}
	var res api.StoreBackupResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Bytes == 0 || res.Path != file {
		t.Fatalf("backup result %q: %v", out, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi, err)
	}
	_, errOut, code = run(t, "restore", file, "--replace")
	if code != 1 || errorCode(t, errOut) != model.CodeFailedPrecondition || !strings.Contains(errOut, "stop every codexhost runtime") {
		t.Fatalf("restore while a runtime runs: code %d %s", code, errOut)
	}
	_ = host.Close()

	_, errOut, code = run(t, "restore", file)
	if code != 1 || !strings.Contains(errOut, "--replace") {
		t.Fatalf("restore over records without --replace: code %d %s", code, errOut)
	}
	out, errOut, code = run(t, "restore", file, "--replace", "--json")
	if code != 0 {
		t.Fatalf("restore --replace: %s", errOut)
	}
	var info store.RestoreInfo
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.Records == 0 || info.Replaced == "" {
		t.Fatalf("restore result %q: %v", out, err)
	}
}

// Without a runtime `backup` opens the database itself; `doctor` verifies the store and says
// when the last backup is older than a week (clock injected).
func TestBackupDirectAndDoctorBackupAge(t *testing.T) {
	t.Parallel()
	home := backupHomeWithRecords(t)
	rep, err := runDoctor(home, false, os.Getenv, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Store.OK || !strings.Contains(rep.Store.BackupWarning, "no backup recorded") {
		t.Fatalf("doctor before any backup: %+v", rep.Store)
	}
	file := filepath.Join(t.TempDir(), "b")
	if _, errOut, code := run(t, "backup", file); code != 0 {
		t.Fatalf("backup: %s", errOut)
	}
	last, ok, err := store.LastBackup(home)
	if err != nil || !ok {
		t.Fatalf("no backup recorded: %v", err)
	}
	rep, _ = runDoctor(home, false, os.Getenv, last.At.Add(6*24*time.Hour))
	if rep.Store.BackupWarning != "" || rep.Store.LastBackup == nil {
		t.Fatalf("doctor six days after a backup: %+v", rep.Store)
	}
	rep, _ = runDoctor(home, false, os.Getenv, last.At.Add(8*24*time.Hour))
	if !strings.Contains(rep.Store.BackupWarning, "8 days old") {
		t.Fatalf("doctor eight days after a backup: %+v", rep.Store)
	}

	if err := os.Remove(filepath.Join(home, store.DBDir, "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	rep, _ = runDoctor(home, false, os.Getenv, last.At)
	if rep.OK || rep.Store.Error == nil || rep.Store.Error.Code != model.CodeStoreDamaged {
		t.Fatalf("doctor of a damaged store: %+v", rep.Store)
	}
	_, errOut, code := run(t, "backup", filepath.Join(t.TempDir(), "c"))
	if code != 1 || errorCode(t, errOut) != model.CodeStoreDamaged {
		t.Fatalf("backup of a damaged store: code %d %s", code, errOut)
	}
}
