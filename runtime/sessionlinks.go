package runtime

import (
	"context"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
)

// Wiring of the rule that lists each native session once (api.SessionLink): catalog pages
// and transcripts name the codexhost thread driving a session and the source of a branch,
// from the supervision bindings and thread records (runtime/supervise/links.go).

// listLinkedSessions is catalog.sessions with every page linked, the pages sent ahead to a
// caller that asked for progress included.
func (h *Host) listLinkedSessions(ctx context.Context, cat *catalog.Catalog, p api.CatalogSessionsParams, settled func(api.CatalogHostSessions)) (api.CatalogSessionsResult, error) {
	if settled != nil {
		next := settled
		settled = func(hs api.CatalogHostSessions) {
			h.supervise.LinkSessions(&hs)
			next(hs)
		}
	}
	res, err := cat.List(ctx, p, settled)
	for i := range res.Hosts {
		h.supervise.LinkSessions(&res.Hosts[i])
	}
	return res, err
}

// linkTranscript names the codexhost thread and branch source of a transcript's session.
func (h *Host) linkTranscript(res api.CatalogTranscriptResult, err error) (api.CatalogTranscriptResult, error) {
	if err == nil {
		res.SessionLink, _ = h.supervise.Link(res.Host, res.Thread)
	}
	return res, err
}
