package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/codexhost/codexhost/internal/shquote"
	"github.com/codexhost/codexhost/model"
)

// LockFileName is the lock beside config.toml that serialises its writers: each takes an
// exclusive flock on it for its whole read-modify-write, so no update is lost to another.
const LockFileName = "config.toml.lock"

// Update runs fn on the current home/config.toml and saves the result, holding the config lock
// from before the read to after the atomic replace. fn's error leaves the file as it was. kept
// is the copy of the previous file when the rewrite dropped its comments (KeptNote says so).
func Update(home string, fn func(*Config) error) (kept string, err error) {
	unlock, err := lockConfig(home)
	if err != nil {
		return "", err
	}
	defer unlock()
	cfg, err := Load(home)
	if err != nil {
		return "", err
	}
	if err := fn(cfg); err != nil {
		return "", err
	}
	return save(home, cfg)
}

// lockConfig takes the exclusive config lock of home, waiting for the holder.
func lockConfig(home string) (unlock func(), err error) {
	path := filepath.Join(home, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "check the permissions of the home directory", "open the config lock %s: %v", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, model.Errorf(model.CodeFailedPrecondition, "check the file system of the home directory", "lock %s: %v", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// checkPrivate refuses a config.toml that is not owned by this user or that gives group or
// other any access, as the home itself is refused: it holds client token hashes and node
// tokens.
func checkPrivate(path string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return model.Errorf(model.CodePermissionDenied, "the home's files must belong to the user who runs codexhost",
			"%s is owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Getuid()).WithDetail("path", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return model.Errorf(model.CodePermissionDenied, "run `chmod 600 "+shquote.Quote(path)+"`",
			"%s is readable or writable by other users (mode %04o)", path, perm).WithDetail("path", path)
	}
	return nil
}

// readConfigFile reads path, returning also its mode and owner as found on the open file.
func readConfigFile(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, model.Errorf(model.CodeFailedPrecondition, "check the file's permissions", "read %s: %v", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, model.Errorf(model.CodeFailedPrecondition, "check the file's permissions", "read %s: %v", path, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, nil, model.Errorf(model.CodeFailedPrecondition, "check the file's permissions", "read %s: %v", path, err)
	}
	if len(b) > maxConfigBytes {
		return nil, nil, model.Errorf(model.CodeInvalidArgument, "config.toml holds settings, not data: shorten it", "%s is larger than %d bytes", path, maxConfigBytes)
	}
	return b, fi, nil
}

// maxConfigBytes bounds what Load reads.
const maxConfigBytes = 4 << 20
