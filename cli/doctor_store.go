package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/backup"
)

// backupMaxAge is how old the last backup may get before doctor says so.
const backupMaxAge = 7 * 24 * time.Hour

// doctorStore is the database part of the doctor's report.
type doctorStore struct {
	OK   bool   `json:"ok"`
	Path string `json:"path"`
	// Held: a runtime holds the database; its files were checked beside it.
	Held     bool     `json:"held"`
	Unlisted []string `json:"unlistedTables,omitempty"`
	// LastBackup is the time of the last `codexhost backup`, if any; BackupWarning says when
	// there is none or it is older than a week.
	LastBackup    *time.Time   `json:"lastBackup,omitempty"`
	BackupWarning string       `json:"backupWarning,omitempty"`
	Error         *model.Error `json:"error,omitempty"`
}

// checkStore verifies the home's database (badger's table checksums, the MANIFEST) and the
// age of its last backup at now.
func checkStore(home string, now time.Time) doctorStore {
	rep := backup.Verify(home)
	out := doctorStore{OK: rep.Error == nil, Path: rep.Dir, Held: rep.Held, Unlisted: rep.Unlisted, Error: rep.Error}
	last, ok, err := backup.Last(home)
	switch {
	case err != nil:
		out.BackupWarning = fmt.Sprintf("the record of the last backup cannot be read (%v); run `codexhost backup FILE`", err)
	case !ok:
		out.BackupWarning = "no backup recorded; run `codexhost backup FILE`"
	default:
		at := last.At
		out.LastBackup = &at
		if age := now.Sub(at); age > backupMaxAge {
			out.BackupWarning = fmt.Sprintf("the last backup (%s, %s) is %d days old; run `codexhost backup FILE`",
				at.Format(time.RFC3339), last.Path, int(age.Hours()/24))
		}
	}
	return out
}

func printStore(w io.Writer, s doctorStore) {
	fmt.Fprintf(w, "store   %s\n", dash(s.Path))
	if len(s.Unlisted) > 0 {
		fmt.Fprintf(w, "  %s not in the MANIFEST; the next start moves them to the home's db-set-aside\n", table.Count(len(s.Unlisted), "table file"))
	}
	printFinding(w, s.Error)
	if s.LastBackup != nil {
		fmt.Fprintf(w, "  last backup %s\n", s.LastBackup.Format(time.RFC3339))
	}
	if s.BackupWarning != "" {
		fmt.Fprintf(w, "  warning: %s\n", s.BackupWarning)
	}
}
