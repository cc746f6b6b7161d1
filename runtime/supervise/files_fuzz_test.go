package supervise

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// Supervision history files and node-turn files of any content load or are refused with
// FAILED_PRECONDITION naming the file.
func FuzzSupervisionHistoryFiles(f *testing.F) {
	f.Add([]byte(`{"v":1,"title":"t","messages":[{"role":"user","text":"hi"}],"bytes":2,"truncated":0,"olderOmitted":false}`))
	f.Add([]byte(`{"v":1,"turnId":"x","status":"completed"}`))
	f.Add([]byte(`{"messages":null}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Branches{dir: t.TempDir()}
		thread := model.ThreadID("019a0000-0000-7000-8000-000000000001")
		for _, path := range []string{s.historyPath(thread), s.nodeTurnPath(thread)} {
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.History(thread); err != nil && !model.IsCode(err, model.CodeFailedPrecondition) {
			t.Fatalf("History: %v", err)
		}
		if _, _, err := s.LoadNodeTurn(thread); err != nil && !model.IsCode(err, model.CodeFailedPrecondition) {
			t.Fatalf("LoadNodeTurn: %v", err)
		}
		_ = filepath.Base(s.dir)
	})
}
