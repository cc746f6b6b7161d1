package api

import "github.com/codexhost/codexhost/model"

// MethodThreadMarkers lists a thread's marker-block audit and its running polls and waits.
const MethodThreadMarkers = "thread.markers"

// ThreadMarkersParams names the thread.
type ThreadMarkersParams struct {
	Thread string `json:"thread"`
}

// ThreadMarkersResult is the audit of every block the thread wrote (oldest first), the runs
// still polling or waiting, and — when a marker block created the thread — its creation.
type ThreadMarkersResult struct {
	Thread  string              `json:"threadId"`
	Link    string              `json:"deepLink"`
	Audit   []model.MarkerAudit `json:"audit"`
	Running []model.MarkerRun   `json:"running"`
	Created *model.MarkerChild  `json:"createdBy,omitempty"`
}

// LineageMarker marks a lineage node a task-create block created: the author's turn, and
// its marker generation (1 for a thread a non-marker thread created; delegations do not count).
type LineageMarker struct {
	Generation int    `json:"generation"`
	Turn       string `json:"turn,omitempty"`
}

// MethodMarkersPrune removes the worktrees and branches marker blocks made for threads that
// ended: their last turn is terminal and no watch or marker run of theirs is pending.
const MethodMarkersPrune = "markers.prune"

// MarkersPruneParams: DryRun changes nothing and says what would be removed.
type MarkersPruneParams struct {
	DryRun bool `json:"dryRun,omitempty"`
}

// MarkersPruneResult lists every created thread that still has a worktree or branch.
type MarkersPruneResult struct {
	DryRun  bool              `json:"dryRun,omitempty"`
	Threads []MarkerPruneItem `json:"threads"`
}

// MarkerPruneItem is one created thread: Active says why it was left alone (it has not
// ended), else Cleanup says what was removed and what was kept. Thread is "" for a worktree
// no record names (a runtime stopped between making it and recording its thread).
type MarkerPruneItem struct {
	Thread  string              `json:"threadId"`
	Repo    string              `json:"repo"`
	Active  string              `json:"active,omitempty"`
	Cleanup model.MarkerCleanup `json:"cleanup"`
}
