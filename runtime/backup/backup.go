// Package backup is the store's backup and restore as the runtime and the CLI use them:
// store.backup through the runtime that holds the home, or the home's database directly when
// none does.
package backup

import (
	"context"
	"path/filepath"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/store"
)

// policy: the file is written with the runtime's rights at a path the caller names, so only
// the home's operator client, whose token owns the home, may ask.
var policy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
	Hint: "run `codexhost backup FILE` as the operator on the runtime's machine"}

// Routes are store.backup on the runtime's store.
func Routes(st func() *store.Store, now func() time.Time) []route.Route {
	return []route.Route{
		route.Spec[api.StoreBackupParams]{Method: api.MethodStoreBackup, Policy: policy,
			Call: func(_ context.Context, _ route.Env, p api.StoreBackupParams) (any, error) {
				return Store(st(), p, now())
			}}.Route(),
	}
}

// Store writes a consistent backup of st to p.Path, 0600.
func Store(st *store.Store, p api.StoreBackupParams, now time.Time) (api.StoreBackupResult, error) {
	if !filepath.IsAbs(p.Path) {
		return api.StoreBackupResult{}, model.Errorf(model.CodeInvalidArgument, "give an absolute path", "the backup path %q is not absolute", p.Path)
	}
	info, err := st.BackupTo(p.Path, now)
	if err != nil {
		return api.StoreBackupResult{}, err
	}
	return api.StoreBackupResult{Path: info.Path, Bytes: info.Bytes, At: info.At, Since: info.Since}, nil
}

// Home backs the home's database up to path directly, for when no runtime holds the home
// (the CLI tries the runtime first). A held home is FAILED_PRECONDITION.
func Home(home, path string, now time.Time) (api.StoreBackupResult, error) {
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

// Restore puts a backup in place of the home's database; see store.Restore.
func Restore(home, path string, o RestoreOptions, now time.Time) (store.RestoreInfo, error) {
	return store.Restore(home, path, o, now)
}

// Verify checks the home's database without changing it; see store.Verify.
func Verify(home string) store.VerifyReport { return store.Verify(home) }

// Last is the home's most recent backup, if one was recorded.
func Last(home string) (store.BackupInfo, bool, error) { return store.LastBackup(home) }
