package api

import "github.com/codexhost/codexhost/model"

// Each native session is listed once, under its catalog host. A session that a codexhost
// thread drives (a native thread it started, or the canonical thread of a continued
// session) names that thread, the id its events, sends and waits use; a branch also names
// the session it continues. thread.list with OutsideCatalog lists only what no host lists:
// threads of external harnesses and continued sessions before their first turn.

// SessionLink is what the runtime's records add to a catalog session or transcript.
type SessionLink struct {
	// CodexhostThread is the codexhost thread that drives the session: its own id for a
	// native thread codexhost started, the supervised thread for a canonical one.
	CodexhostThread string `json:"codexhostThread,omitempty"`
	// BranchOf is the source of a continued session's branch.
	BranchOf *model.BranchSource `json:"branchOf,omitempty"`
}
