package catalog

import "github.com/codexhost/codexhost/model"

// BranchGuard is what archive asks of the supervised branches kept beside the catalog
// (runtime/supervise), so that archiving never takes a branch's source or canonical thread
// from under it.
type BranchGuard interface {
	// GuardArchive is taken before archive reads the thread and released when it is done: a
	// source whose branch is pending or initialising is refused, and no branch can appear
	// meanwhile.
	GuardArchive(host string, id model.ThreadID) (release func(), err error)
	// CanonicalOwner says which supervised thread owns a canonical thread, or "".
	CanonicalOwner(id string) string
}

// SetBranchGuard gives archive its guard; call it once, before the catalog is used.
func (c *Catalog) SetBranchGuard(g BranchGuard) { c.guard = g }

// archiveGuard is the guard's, or nothing to hold when no branches are kept.
func (c *Catalog) archiveGuard(host string, id model.ThreadID) (func(), error) {
	if c.guard == nil {
		return func() {}, nil
	}
	return c.guard.GuardArchive(host, id)
}

// boundOwner says why archiving id would take a supervised thread's history with it, or "".
func (c *Catalog) boundOwner(id string) string {
	if c.guard == nil {
		return ""
	}
	return c.guard.CanonicalOwner(id)
}
