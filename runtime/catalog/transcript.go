package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

const (
	transcriptCursorHint = "pass an olderCursor or newerCursor that an earlier `codexhost transcript` gave for the same thread and --host, or no cursor for the newest turns"
	dirOlder             = "older"
	dirNewer             = "newer"
	// imagePlaceholder stands for an image input; its payload and path are never shown.
	imagePlaceholder = "[Image attachment]"
)

// Transcript returns one page of at most 20 turns of a thread, oldest first: the newest page
// without a cursor, else the page the cursor leads to. Only user and assistant messages are
// shown; a page whose items exceed PageBytes is refused. It never reads a whole thread.
func (c *Catalog) Transcript(ctx context.Context, p api.CatalogTranscriptParams) (api.CatalogTranscriptResult, error) {
	h, err := c.host(p.Host)
	if err != nil {
		return api.CatalogTranscriptResult{}, err
	}
	id, err := model.ParseThreadID(p.Thread)
	if err != nil {
		return api.CatalogTranscriptResult{}, err
	}
	pos := cursorBody{Dir: dirOlder}
	fromCursor := p.Cursor != ""
	if fromCursor {
		b, err := c.decodeCursor(p.Cursor, kindTranscript, h.spec.ID, transcriptCursorHint)
		if err != nil {
			return api.CatalogTranscriptResult{}, err
		}
		if b.Thread != string(id) {
			return api.CatalogTranscriptResult{}, model.Errorf(model.CodeInvalidArgument, transcriptCursorHint, "invalid cursor: it belongs to another thread")
		}
		if b.Dir != dirOlder && b.Dir != dirNewer {
			return api.CatalogTranscriptResult{}, model.Errorf(model.CodeInvalidArgument, transcriptCursorHint, "invalid cursor: it is malformed")
		}
		pos = b
	}
	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	defer cancel()
	conn, err := c.conn(ctx, hctx, h)
	if err != nil {
		return api.CatalogTranscriptResult{}, err
	}

	limit := DefaultTurnsPerPage
	if pos.Anchor != "" {
		limit++ // the App Server repeats the anchor turn first
	}
	q := appserver.TurnsListParams{ThreadID: string(id), Cursor: pos.Native, Limit: limit, ItemsView: "summary", SortDirection: "desc"}
	if pos.Dir == dirNewer {
		q.SortDirection = "asc"
	}
	res, err := c.turnsList(hctx, conn, q)
	switch {
	case err == nil:
		h.succeeded(c.opts.Now())
	case appserver.RPCHas(err, "not materialized"):
		// A thread without a stored turn yet: an empty transcript.
		return api.CatalogTranscriptResult{Host: h.spec.ID, Thread: string(id), Turns: []api.CatalogTurn{}}, nil
	case appserver.RPCHas(err, "ephemeral"):
		return api.CatalogTranscriptResult{}, model.Errorf(model.CodeFailedPrecondition, "ephemeral threads keep no history to page", "thread %s is ephemeral", id)
	case appserver.UnknownThread(err):
		return api.CatalogTranscriptResult{}, threadNotFound(id, h.spec.ID)
	case isHostFailure(err):
		return api.CatalogTranscriptResult{}, c.hostFailed(ctx, h, err)
	case fromCursor:
		fmt.Fprintf(c.opts.Log, "catalog: host %s: transcript of %s: %v\n", h.spec.ID, id, err)
		return api.CatalogTranscriptResult{}, model.Errorf(model.CodeInvalidArgument, transcriptCursorHint, "the cursor no longer matches the thread's history")
	default:
		fmt.Fprintf(c.opts.Log, "catalog: host %s: transcript of %s: %v\n", h.spec.ID, id, err)
		return api.CatalogTranscriptResult{}, threadRefused("list the thread's turns")
	}

	turns := res.Data
	if pos.Anchor != "" {
		if len(turns) == 0 || turns[0].ID != pos.Anchor {
			return api.CatalogTranscriptResult{}, model.Errorf(model.CodeInvalidArgument, transcriptCursorHint, "the cursor no longer matches the thread's history (turns were removed)")
		}
		turns = turns[1:]
	}
	if size := itemBytes(turns); size > c.opts.PageBytes {
		return api.CatalogTranscriptResult{}, model.Errorf(model.CodeFailedPrecondition,
			"this page of turns is too large to transfer; read the thread in Codex itself",
			"the items of this transcript page take %d bytes, more than the %d allowed", size, c.opts.PageBytes).
			WithDetail("pageBytes", size).WithDetail("maxPageBytes", c.opts.PageBytes)
	}

	out := api.CatalogTranscriptResult{Host: h.spec.ID, Thread: string(id), Turns: make([]api.CatalogTurn, 0, len(turns))}
	cur := func(dir, native, anchor string) string {
		return c.encodeCursor(cursorBody{Kind: kindTranscript, Host: h.spec.ID, Thread: string(id), Dir: dir, Native: native, Anchor: anchor})
	}
	if q.SortDirection == "desc" {
		for i := len(turns) - 1; i >= 0; i-- {
			out.Turns = append(out.Turns, projectTurn(turns[i]))
		}
		if res.NextCursor != nil && *res.NextCursor != "" && len(turns) > 0 {
			out.OlderCursor = cur(dirOlder, *res.NextCursor, "")
		}
		// The newest page has nothing newer; an older page leads back up from its newest
		// turn, which the App Server's backwards cursor includes.
		if fromCursor && len(turns) > 0 && res.BackwardsCursor != nil && *res.BackwardsCursor != "" {
			out.NewerCursor = cur(dirNewer, *res.BackwardsCursor, turns[0].ID)
		}
	} else {
		for _, t := range turns {
			out.Turns = append(out.Turns, projectTurn(t))
		}
		if res.NextCursor != nil && *res.NextCursor != "" && len(turns) > 0 {
			out.NewerCursor = cur(dirNewer, *res.NextCursor, "")
		}
		if len(turns) > 0 && res.BackwardsCursor != nil && *res.BackwardsCursor != "" {
			out.OlderCursor = cur(dirOlder, *res.BackwardsCursor, turns[0].ID)
		}
	}
	return out, nil
}

// turnsList is thread/turns/list, always a bounded page, riding out the moment after a
// thread's first turn started, when the App Server cannot list its turns yet.
func (c *Catalog) turnsList(ctx context.Context, conn Conn, q appserver.TurnsListParams) (appserver.TurnsListResult, error) {
	return appserver.RetryNotReady(ctx, appserver.NotReadyTurnsList, func() (appserver.TurnsListResult, error) {
		return appserver.On(conn).TurnsList(ctx, q)
	})
}

// itemBytes is the serialized size of the items of a page.
func itemBytes(turns []appserver.Turn) int {
	n := 0
	for _, t := range turns {
		for _, it := range t.Items {
			n += len(it.Raw)
		}
	}
	return n
}

func projectTurn(t appserver.Turn) api.CatalogTurn {
	ct := api.CatalogTurn{ID: t.ID, Status: t.Status, StartedAt: unixTime(t.StartedAt), CompletedAt: unixTime(t.CompletedAt), Messages: []model.Message{}}
	if t.Error != nil {
		ct.Error = t.Error.Message
	}
	for _, it := range t.Items {
		var m model.Message
		switch it.Type {
		case "userMessage":
			var parts []string
			for _, in := range it.Content {
				switch in.Type {
				case "text":
					if in.Text != "" {
						parts = append(parts, in.Text)
					}
				case "image", "localImage":
					parts = append(parts, imagePlaceholder)
				}
			}
			m = model.Message{Role: model.RoleUser, Text: strings.Join(parts, "\n")}
		case "agentMessage":
			m = model.Message{Role: model.RoleAssistant, Text: it.Text}
		default:
			continue
		}
		if m.Text == "" {
			continue
		}
		m.TurnID = t.ID
		m.At = it.Time(t)
		ct.Messages = append(ct.Messages, m)
	}
	return ct
}

func unixTime(sec *int64) *time.Time {
	if sec == nil {
		return nil
	}
	t := time.Unix(*sec, 0).UTC()
	return &t
}
