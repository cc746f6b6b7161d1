package runtime

import (
	"context"
	"path/filepath"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/store"
)

// backupPolicy: the file is written with the runtime's rights at a path the caller names,
// so only the home's operator client, whose token owns the home, may ask.
var backupPolicy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
	Hint: "run `codexhost backup FILE` as the operator on the runtime's machine"}

func (h *Host) storeRoutes() []route.Route {
	return []route.Route{
		route.Spec[api.StoreBackupParams]{Method: api.MethodStoreBackup, Policy: backupPolicy,
			Call: func(ctx context.Context, _ route.Env, p api.StoreBackupParams) (any, error) {
				return h.StoreBackup(ctx, p)
			}}.Route(),
	}
}

// StoreBackup writes a consistent backup of the store to p.Path, 0600.
func (h *Host) StoreBackup(_ context.Context, p api.StoreBackupParams) (any, error) {
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

// RestoreOptions are the choices of a restore; see store.RestoreOptions.
type RestoreOptions = store.RestoreOptions

// RestoreHome puts a backup in place of the home's database; see store.Restore.
func RestoreHome(home, path string, o RestoreOptions, now time.Time) (store.RestoreInfo, error) {
	return store.Restore(home, path, o, now)
}

// VerifyStore checks the home's database without changing it; see store.Verify.
func VerifyStore(home string) store.VerifyReport { return store.Verify(home) }

// LastBackup is the home's most recent backup, if one was recorded.
func LastBackup(home string) (store.BackupInfo, bool, error) { return store.LastBackup(home) }
