package ui

// The fleet lists each native session once, under its host (api.SessionLink): a session a
// codexhost thread drives is that thread's row, so its events, sends and transcript follow
// the id the runtime knows; the codexhost group holds only what no host lists (external
// threads, branches before their first turn).

import (
	"slices"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// sessionRef is the reference of a catalog session of host.
func sessionRef(host string, s api.CatalogSession) threadRef {
	r := threadRef{ID: s.ID, Host: host, Title: oneLine(s.Title), Status: s.Status, Waiting: s.WaitingOnApproval,
		Cwd: oneLine(s.Cwd), Harness: model.NativeHarness}
	if s.CodexhostThread != "" {
		// A codexhost thread: the fleet shows its usage ("—" while it reported none).
		r.Linked, r.Metered, r.Usage = true, true, s.Usage
		if s.CodexhostThread != s.ID {
			r.ID, r.Session = s.CodexhostThread, s.ID
		}
	}
	if s.BranchOf != nil {
		r.BranchHost, r.BranchThread = oneLine(s.BranchOf.Host), oneLine(s.BranchOf.Thread)
	}
	return r
}

// linkMark starts the title of a row a codexhost thread drives.
const linkMark = "◇ "

// linkNote tells what a thread branches from and which native session it drives, for its
// transcript's head (the source first: it is what a person looks for); "" for a session
// nothing links. The host is named when it is not the default one.
func (c *common) linkNote(r threadRef) string {
	var parts []string
	if r.BranchThread != "" {
		b := "branch of " + c.short(r.BranchThread)
		if r.BranchHost != "" && r.BranchHost != c.defaultHost {
			b += " on " + r.BranchHost
		}
		parts = append(parts, b)
	}
	switch {
	case r.Session != "":
		parts = append(parts, "session "+c.short(r.Session))
	case r.Linked:
		parts = append(parts, "codexhost thread")
	}
	return strings.Join(parts, " · ")
}

// hostedAmong says which of the codexhost group's rows the host groups show too: such a row
// has moved to its host (a branch's first turn made its Codex thread) and is not shown twice.
// Only those few ids are looked up, so a status event on a large fleet builds no set of every
// host row.
func (f *fleetPane) hostedAmong(rows []fleetRow) map[string]bool {
	hosted := map[string]bool{}
	if len(rows) == 0 {
		return hosted
	}
	want := make(map[string]bool, len(rows))
	for _, r := range rows {
		want[r.ref.ID] = true
	}
	for _, g := range f.groups {
		if g.id == threadsGroup {
			continue
		}
		for _, r := range g.rows {
			if want[r.ref.ID] {
				hosted[r.ref.ID] = true
			}
		}
	}
	return hosted
}

// keepMoving keeps the native rows a fresh first page of the codexhost group left out
// because a host lists them now, until a host page shows them: between reloads of the host
// pages a thread never vanishes on its way there.
func (f *fleetPane) keepMoving(old, fresh []fleetRow) []fleetRow {
	hosted := f.hostedAmong(old)
	for _, r := range old {
		if r.ref.Harness == model.NativeHarness && !hosted[r.ref.ID] &&
			!slices.ContainsFunc(fresh, func(n fleetRow) bool { return n.ref.ID == r.ref.ID }) {
			fresh = append(fresh, r)
		}
	}
	return fresh
}
