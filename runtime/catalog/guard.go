package catalog

import "github.com/codexhost/codexhost/model"

// BranchGuard is what archive asks of the supervised branches kept beside the catalog
// (runtime/supervise), so that archiving never takes a branch's source or canonical thread
// from under it. The keeper passes it to each Archive; the catalog holds none.
type BranchGuard interface {
	// GuardArchive is taken before archive reads the thread and released when it is done: a
	// source whose branch is pending or initialising is refused, and no branch can appear
	// meanwhile.
	GuardArchive(host string, id model.ThreadID) (release func(), err error)
	// CanonicalOwner says which supervised thread owns a canonical thread, or "".
	CanonicalOwner(id string) string
}

// archiveGuard is the guard's, or nothing to hold when no branches are kept.
func archiveGuard(g BranchGuard, host string, id model.ThreadID) (func(), error) {
	if g == nil {
		return func() {}, nil
	}
	return g.GuardArchive(host, id)
}

// boundOwner says why archiving id would take a supervised thread's history with it, or "".
func boundOwner(g BranchGuard, id string) string {
	if g == nil {
		return ""
	}
	return g.CanonicalOwner(id)
}
