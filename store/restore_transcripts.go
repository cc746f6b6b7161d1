package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// TranscriptsDir is the home's directory of external-harness transcripts, one
// <threadID>.jsonl per thread. A backup holds the database only: an external thread is read
// from its transcript, so one restored without it is listed nowhere, and Restore says so.
const TranscriptsDir = "transcripts"

// externalThreads are the ids of the threads of external harnesses in db, whose messages live
// in transcript files, not in the database.
func externalThreads(db interface {
	View(func(*badgerTxn) error) error
}) ([]string, error) {
	var ids []string
	err := db.View(func(txn *badgerTxn) error {
		it := txn.NewIterator(badgerKeysOnly())
		defer it.Close()
		prefix := []byte(PrefixThread + "/")
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			var rec struct {
				Harness string `json:"harness"`
			}
			err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &rec) })
			if err != nil {
				return err
			}
			if rec.Harness != "" && rec.Harness != model.NativeHarness {
				ids = append(ids, strings.TrimPrefix(string(it.Item().Key()), PrefixThread+"/"))
			}
		}
		return nil
	})
	return ids, err
}

// missingTranscripts counts the ids without a transcript in home.
func missingTranscripts(home string, ids []string) (int, error) {
	n := 0
	for _, id := range ids {
		_, err := os.Lstat(filepath.Join(home, TranscriptsDir, id+".jsonl"))
		if errors.Is(err, os.ErrNotExist) {
			n++
		} else if err != nil {
			return 0, err
		}
	}
	return n, nil
}
