package catalog

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// fetchSegment reads one native page of unarchived threads, newest first.
func fetchSegment(ctx context.Context, conn Conn, cursor string, size int, now func() time.Time) (*segment, error) {
	// Stamped before the call: a change seen while it runs may not be in the answer.
	started := now()
	pager := appserver.NewThreadPager[ListedThread](conn, storedThreads(cursor, size))
	data, err := pager.Next(ctx)
	if err != nil {
		return nil, err
	}
	s := &segment{rows: make([]row, 0, len(data)), fetched: started, next: pager.Cursor(), end: pager.Done()}
	for _, t := range data {
		if r, ok := project(t); ok {
			r.at = started
			s.rows = append(s.rows, r)
		}
	}
	return s, nil
}

// project maps a listed thread to a session row; ok is false for what the catalog never
// shows (non-interactive sources, ephemeral threads).
func project(t ListedThread) (row, bool) {
	src := sourceKind(t.Source)
	if !interactiveSources()[src] || t.Ephemeral || t.ID == "" {
		return row{}, false
	}
	s := api.CatalogSession{
		ID:                t.ID,
		Cwd:               t.Cwd,
		Status:            sessionStatus(t.Status.Type),
		WaitingOnApproval: t.Status.WaitingOnApproval(),
		CreatedAt:         time.Unix(t.CreatedAt, 0).UTC(),
		UpdatedAt:         time.Unix(t.UpdatedAt, 0).UTC(),
		Source:            src,
		ModelProvider:     t.ModelProvider,
		CodexVersion:      t.CliVersion,
	}
	if t.Name != nil {
		s.Title = cleanTitle(*t.Name)
	}
	if t.GitInfo != nil && t.GitInfo.Branch != nil {
		s.GitBranch = cleanLine(*t.GitInfo.Branch, 200)
	}
	return row{s: s, titleFold: fold(s.Title)}, true
}

// sourceKind is "cli", "vscode", …, or the name of a custom source, lowercased.
func sourceKind(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	if c, ok := obj["custom"]; ok && json.Unmarshal(c, &s) == nil {
		return strings.ToLower(strings.TrimSpace(s))
	}
	for k := range obj {
		return k
	}
	return ""
}

// sessionStatus reads a status the catalog does not know as notLoaded: it knows nothing of
// the thread's state.
func sessionStatus(t string) string {
	s, _ := appserver.ModelStatus(t, model.ThreadNotLoaded)
	return s
}

// withStatus adds a thread's status to a refusal; a status the catalog does not know keeps
// the App Server's own as the reason.
func withStatus(e *model.Error, appStatus string) *model.Error {
	s, known := appserver.ModelStatus(appStatus, model.ThreadNotLoaded)
	e = e.WithDetail("status", s)
	if !known {
		e = e.WithDetail("appServerStatus", appStatus)
	}
	return e
}

// titleRunes bounds a title; names are user text of any length.
const titleRunes = 200

func cleanTitle(s string) string { return cleanLine(s, titleRunes) }

// cleanLine makes user text one printable line of at most n runes.
func cleanLine(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// fold is the case-insensitive form titles are compared in.
func fold(s string) string { return strings.ToLower(s) }
