package runtime

import (
	"context"
	"path/filepath"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/store"
)

// StoreBackup serves api.MethodStoreBackup for the home's operator client only: the file is
// written with the runtime's rights at a path the caller names.
func (h *Host) StoreBackup(_ context.Context, caller api.Caller, p api.StoreBackupParams) (any, error) {
	if caller.Kind != api.CallerClient || caller.Client != config.OperatorClient {
		return nil, model.Errorf(model.CodePermissionDenied, "run `codexhost backup FILE` as the operator on the runtime's machine",
			"%s is reserved for the home's operator client", api.MethodStoreBackup)
	}
	if !filepath.IsAbs(p.Path) {
		return nil, model.Errorf(model.CodeInvalidArgument, "give an absolute path", "the backup path %q is not absolute", p.Path)
	}
	info, err := h.store.BackupTo(p.Path, h.opts.Now())
	if err != nil {
		return nil, err
	}
	return api.StoreBackupResult{Path: info.Path, Bytes: info.Bytes, At: info.At, Since: info.Since}, nil
}

// BackupHome backs the home's database up to path directly, for when no runtime holds the
// home (the CLI tries the runtime first). A held home is FAILED_PRECONDITION.
func BackupHome(home, path string, now time.Time) (api.StoreBackupResult, error) {
	st, err := store.Open(home, store.Options{})
	if err != nil {
		return api.StoreBackupResult{}, err
	}
	info, err := st.BackupTo(path, now)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return api.StoreBackupResult{}, err
	}
	return api.StoreBackupResult{Path: info.Path, Bytes: info.Bytes, At: info.At, Since: info.Since}, nil
}

// RestoreHome puts a backup in place of the home's database; see store.Restore.
func RestoreHome(home, path string, replace bool, now time.Time) (store.RestoreInfo, error) {
	return store.Restore(home, path, replace, now)
}

// VerifyStore checks the home's database without changing it; see store.Verify.
func VerifyStore(home string) store.VerifyReport { return store.Verify(home) }

// LastBackup is the home's most recent backup, if one was recorded.
func LastBackup(home string) (store.BackupInfo, bool, error) { return store.LastBackup(home) }
