package opview

import (
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The sessions table says what the terminal app says: stored and error, never the App
// Server's raw notLoaded or systemError.
func TestSessionsTableUsesThePeoplesStatusWords(t *testing.T) {
	tab := Sessions([]api.CatalogSession{{ID: "a", Status: model.ThreadNotLoaded}, {ID: "b", Status: model.ThreadSystemError}, {ID: "c", Status: model.ThreadActive, WaitingOnApproval: true}})
	want := []string{"stored", "error", "running (waiting on approval)"}
	for i, row := range tab.Rows {
		if got := row[1].Text; got != want[i] {
			t.Errorf("row %d status %q, want %q", i, got, want[i])
		}
	}
}
