package catalog

import (
	"context"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Bounds of the visible history a branch carries: the newest user and assistant messages up
// to the source's last terminal turn.
const (
	HistoryMaxMessages     = 200
	HistoryMaxBytes        = 512 << 10
	HistoryMaxMessageBytes = 64 << 10
	// TruncatedMarker ends a message cut to HistoryMaxMessageBytes (marker included).
	TruncatedMarker = "\n[message truncated]"
	// historyMaxPages bounds the native pages one continue reads (20 turns each).
	historyMaxPages = 50
)

// History is the bounded visible history of a branch, oldest message first. It is
// conversation content, so it is kept in a file of the home (0600), never in a store record.
type History struct {
	V        int             `json:"v"`
	Title    string          `json:"title,omitempty"`
	Messages []model.Message `json:"messages"`
	Bytes    int             `json:"bytes"`
	// Truncated counts messages cut to HistoryMaxMessageBytes; OlderOmitted says older
	// messages exist that the bounds left out.
	Truncated    int  `json:"truncated"`
	OlderOmitted bool `json:"olderOmitted"`
}

// Summary is the history's sizes, without content.
func (h History) Summary() *api.CatalogBranchHistory {
	return &api.CatalogBranchHistory{Messages: len(h.Messages), Bytes: h.Bytes, Truncated: h.Truncated, OlderOmitted: h.OlderOmitted}
}

// historyBuilder takes a source's turns newest first and keeps the newest messages that fit.
type historyBuilder struct {
	newestFirst  []model.Message
	bytes        int
	truncated    int
	terminal     bool // the last terminal turn was reached; turns before it are kept
	full         bool
	olderOmitted bool
}

func terminalTurn(status string) bool {
	switch status {
	case appserver.TurnCompleted, appserver.TurnInterrupted, appserver.TurnFailed:
		return true
	}
	return false
}

// add takes the next older turn; false once the bounds are reached. Turns newer than the last
// terminal one (a turn still running) are skipped: their work is unfinished. Only user and
// assistant messages are kept, images as a placeholder (projectTurn): reasoning, tool calls,
// tool results, image payloads and paths never get in.
func (b *historyBuilder) add(t appserver.Turn) bool {
	if b.full {
		return false
	}
	if !b.terminal {
		if !terminalTurn(t.Status) {
			return true
		}
		b.terminal = true
	}
	msgs := projectTurn(t).Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if len(b.newestFirst) == HistoryMaxMessages {
			b.full, b.olderOmitted = true, true
			return false
		}
		text, cut := boundText(m.Text, HistoryMaxMessageBytes)
		if b.bytes+len(text) > HistoryMaxBytes {
			b.full, b.olderOmitted = true, true
			return false
		}
		if cut {
			b.truncated++
		}
		m.Text = text
		b.bytes += len(text)
		b.newestFirst = append(b.newestFirst, m)
	}
	return true
}

func (b *historyBuilder) history(title string) History {
	msgs := make([]model.Message, len(b.newestFirst))
	for i, m := range b.newestFirst {
		msgs[len(msgs)-1-i] = m
	}
	return History{V: 1, Title: title, Messages: msgs, Bytes: b.bytes, Truncated: b.truncated, OlderOmitted: b.olderOmitted}
}

// boundText cuts s to at most limit bytes, marker included, at a character boundary.
func boundText(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	cut := limit - len(TruncatedMarker)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + TruncatedMarker, true
}

// BuildHistory bounds the history of turns given newest first (as one page of
// thread/turns/list returns them).
func BuildHistory(title string, newestFirst []appserver.Turn) History {
	var b historyBuilder
	for _, t := range newestFirst {
		if !b.add(t) {
			break
		}
	}
	return b.history(title)
}

// readHistory pages the source's turns newest first until the bounds are reached, its first
// turn is read or the page budget is spent. Never an unbounded read.
func (c *Catalog) readHistory(ctx context.Context, conn Conn, id model.ThreadID, title string) (History, error) {
	var b historyBuilder
	cursor := ""
	for page := 0; page < historyMaxPages; page++ {
		res, err := c.turnsList(ctx, conn, appserver.TurnsListParams{ThreadID: string(id), Cursor: cursor, Limit: DefaultTurnsPerPage, ItemsView: "summary", SortDirection: "desc"})
		if appserver.RPCHas(err, "not materialized") {
			return b.history(title), nil // no stored turn yet: nothing to carry
		}
		if err != nil {
			return History{}, err
		}
		if size := itemBytes(res.Data); size > c.opts.PageBytes {
			return History{}, model.Errorf(model.CodeFailedPrecondition, "continue it in Codex itself",
				"a page of the thread's turns takes %d bytes, more than the %d allowed", size, c.opts.PageBytes)
		}
		for _, t := range res.Data {
			if !b.add(t) {
				return b.history(title), nil
			}
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			return b.history(title), nil
		}
		if len(res.Data) == 0 || *res.NextCursor == cursor {
			break // a page that leads nowhere: keep what was read
		}
		cursor = *res.NextCursor
	}
	b.olderOmitted = true
	return b.history(title), nil
}
