package api

import "time"

// MethodStoreBackup writes a backup of the home's database (badger's backup stream, a
// consistent snapshot) to a file, 0600, replacing it atomically. Only the home's operator
// client may call it: the runtime writes the file with its own rights.
const MethodStoreBackup = "store.backup"

// StoreBackupParams names the file; Path must be absolute (the CLI resolves it).
type StoreBackupParams struct {
	Path string `json:"path"`
}

// StoreBackupResult describes the backup written.
type StoreBackupResult struct {
	Path  string    `json:"path"`
	Bytes int64     `json:"bytes"`
	At    time.Time `json:"at"`
	// Since is badger's version at the end of the stream.
	Since uint64 `json:"since"`
}
