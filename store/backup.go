package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/codexhost/codexhost/model"
)

// LastBackupFile, in the home, records the most recent backup (0600 JSON, BackupInfo). It is a
// file rather than a record so that doctor can read it while a runtime holds the database.
const LastBackupFile = "last-backup.json"

// BackupInfo describes one backup written by BackupTo.
type BackupInfo struct {
	Path  string    `json:"path"`
	Bytes int64     `json:"bytes"`
	At    time.Time `json:"at"`
	// Since is the version the backup stream ends at (badger's), for an incremental backup.
	Since uint64 `json:"since"`
}

// BackupTo writes a full backup of the database (badger's backup stream, a consistent
// snapshot taken while writers go on) to path, 0600, replacing it atomically: a temporary
// file beside it, synced, then renamed. It records the backup in the home's LastBackupFile.
func (s *Store) BackupTo(path string, now time.Time) (BackupInfo, error) {
	if err := s.enter(); err != nil {
		return BackupInfo{}, err
	}
	defer s.leave()
	dest, err := resolveTarget(path)
	if err != nil {
		return BackupInfo{}, err
	}
	var since uint64
	n, err := writeAtomic(dest, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<20)
		v, berr := s.db.Backup(w, 0)
		if berr != nil {
			return fmt.Errorf("store: backup: %w", berr)
		}
		since = v
		return w.Flush()
	})
	if err != nil {
		return BackupInfo{}, err
	}
	info := BackupInfo{Path: dest, Bytes: n, At: now.UTC(), Since: since}
	b, _ := json.Marshal(info)
	if _, err := writeAtomic(filepath.Join(s.home, LastBackupFile), func(f *os.File) error {
		_, werr := f.Write(append(b, '\n'))
		return werr
	}); err != nil {
		return info, err
	}
	return info, nil
}

// LastBackup reads the home's LastBackupFile; ok is false when no backup was recorded.
func LastBackup(home string) (info BackupInfo, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(home, LastBackupFile))
	if errors.Is(err, os.ErrNotExist) {
		return BackupInfo{}, false, nil
	}
	if err != nil {
		return BackupInfo{}, false, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return BackupInfo{}, false, fmt.Errorf("store: %s: %w", LastBackupFile, err)
	}
	return info, true, nil
}

// resolveTarget makes path absolute with its directory's symlinks resolved, so the file lands
// where the directory really is.
func resolveTarget(path string) (string, error) {
	if path == "" {
		return "", model.Errorf(model.CodeInvalidArgument, "name the backup file", "the backup path is empty")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", model.Errorf(model.CodeInvalidArgument, "create the directory first", "the backup directory of %s: %v", path, err)
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// writeAtomic writes dest through fill into a 0600 temporary file beside it, syncs it and
// renames it over dest. It returns the bytes written.
func writeAtomic(dest string, fill func(*os.File) error) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("store: create %s: %w", dest, err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return 0, err
	}
	if err := fill(f); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("store: sync %s: %w", tmp, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return 0, fmt.Errorf("store: rename %s: %w", dest, err)
	}
	done = true
	if d, err := os.Open(filepath.Dir(dest)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return fi.Size(), nil
}
