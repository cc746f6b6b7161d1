package supervise

import (
	"context"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/harness"
)

// One rule lists each native session once (api.SessionLink): under its catalog host, naming
// the codexhost thread that drives it. These are the answers the rule needs from the
// bindings and thread records; they read ids only, and a branch's title from its own 0600
// history file.

// Link is what the records say of session id of host: the codexhost thread driving it, the
// source it branches from, and the title a branch takes from its source (empty when the
// session is no branch). A session the records do not know gets a zero link.
func (s *Service) Link(host, id string) (api.SessionLink, string) {
	if s.branches == nil || id == "" {
		return api.SessionLink{}, ""
	}
	sup, ok, err := s.branches.OfCanonical(model.ThreadID(id))
	if err == nil && ok && sup.Host == host {
		link := api.SessionLink{CodexhostThread: string(sup.Thread), BranchOf: branchOf(sup)}
		if link.BranchOf == nil {
			return link, "" // bound to the node's own thread: no branch
		}
		return link, s.branchTitle(sup.Thread)
	}
	// The native harness runs on the default home only.
	if host != catalog.LocalHostID {
		return api.SessionLink{}, ""
	}
	if rec, err := s.deps.Store.Thread(model.ThreadID(id)); err == nil && rec.Harness == model.NativeHarness {
		return api.SessionLink{CodexhostThread: id}, ""
	}
	return api.SessionLink{}, ""
}

// LinkSessions links every session of a host's page, with the usage of the codexhost thread
// driving it (the fleet lists that thread there); a branch without a title of its own takes
// its source's.
func (s *Service) LinkSessions(hs *api.CatalogHostSessions) {
	for i := range hs.Sessions {
		ss := &hs.Sessions[i]
		link, title := s.Link(hs.Host, ss.ID)
		ss.SessionLink = link
		if ss.Title == "" {
			ss.Title = title
		}
		if link.CodexhostThread != "" && s.opts.UsageOf != nil {
			ss.Usage = s.opts.UsageOf(model.ThreadID(link.CodexhostThread))
		}
	}
}

// InCatalog reports whether a catalog host lists the native session of codexhost thread id,
// so that thread.list with OutsideCatalog leaves it to the host: every native thread but a
// branch before its first turn, which has no Codex thread yet.
func (s *Service) InCatalog(id model.ThreadID, harnessName string) bool {
	if harnessName != model.NativeHarness {
		return false
	}
	if s.branches == nil {
		return true
	}
	sup, ok, err := s.branches.Supervision(id)
	if err != nil || !ok {
		return err == nil // a native thread of its own; an unreadable binding stays listed here
	}
	return sup.State != model.SupervisionPending && sup.Canonical != ""
}

// branchTitle is the title a branch takes from its source, as its history recorded it.
func (s *Service) branchTitle(thread model.ThreadID) string {
	hist, err := s.branches.History(thread)
	if err != nil {
		return ""
	}
	return model.BranchTitle(hist.Title)
}

// branchOf is the source link of a local branch; nil for a node binding.
func branchOf(sup model.Supervision) *model.BranchSource {
	if sup.Binding == model.BindingNodeSession {
		return nil
	}
	return &model.BranchSource{Host: sup.Host, Thread: string(sup.Source)}
}

// named reports whether the canonical thread got a name of its own (a rename in Codex or
// here); a thread that cannot be read has none.
func named(ctx context.Context, n *harness.Native, canonical model.ThreadID) bool {
	if n == nil || canonical == "" {
		return false
	}
	c, err := n.Client(ctx)
	if err != nil {
		return false
	}
	th, err := appserver.On(c).ThreadRead(ctx, string(canonical))
	return err == nil && th.Name != nil && strings.TrimSpace(*th.Name) != ""
}

// ArchiveGuard is what every archive of the catalog must respect while branches are kept:
// the branches themselves; nil before Start.
func (s *Service) ArchiveGuard() catalog.BranchGuard {
	if s.branches == nil {
		return nil
	}
	return s.branches
}

// SessionOf is the native session supervised thread id drives: its catalog host and Codex
// thread. ok is false for an id that is no supervised thread; thread is empty while a
// branch waits for the first send that makes its Codex thread.
func (s *Service) SessionOf(id string) (host, thread string, ok bool) {
	if s.branches == nil {
		return "", "", false
	}
	tid, err := model.ParseThreadID(id)
	if err != nil {
		return "", "", false
	}
	sup, ok, err := s.branches.Supervision(tid)
	if err != nil || !ok {
		return "", "", false
	}
	return sup.Host, string(sup.Canonical), true
}
