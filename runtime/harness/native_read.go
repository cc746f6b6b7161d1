package harness

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// nativeTitleRunes bounds a title made from the thread preview (its first user message).
const nativeTitleRunes = 80

// Read returns a snapshot of a thread using only read requests (thread/read without turns,
// thread/turns/list), so the thread is neither loaded, resumed nor marked read.
//
// A thread open in another Codex process reads as notLoaded here, and that process's running
// turn reads as interrupted without a completion time. When the thread's writer lock is held by
// a process other than our App Server, such a turn is reported as inProgress (the thread stays
// notLoaded: it is not loaded here) and Result comes from the turn before it, because reporting
// interrupted would announce a stop that did not happen. Without a lock holder, or with one
// that started after the turn did, the turn really was cut off (its process died) and stays
// interrupted.
func (n *Native) Read(ctx context.Context, id model.ThreadID, req ReadRequest) (Snapshot, error) {
	var limit int
	if req.Messages {
		var err error
		if limit, err = nativePageLimit(req.Limit); err != nil {
			return Snapshot{}, err
		}
	}
	c, err := n.Client(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	th, err := nativeThreadRead(ctx, c, id)
	if err != nil {
		return Snapshot{}, nativeMapErr(err, id)
	}
	info := NativeThreadInfo(th)
	if t, ok := n.tracked(c, id); ok {
		info.Status, info.WaitingOnApproval = t.status, t.waiting
	}

	var turns []appserver.Turn
	if !th.Ephemeral { // ephemeral threads have no turn history to page
		res, err := nativeTurnsList(ctx, c, appserver.TurnsListParams{ThreadID: string(id), Limit: 2})
		switch {
		case nativeNotMaterialized(err):
		case err != nil:
			return Snapshot{}, nativeMapErr(err, id)
		default:
			turns = res.Data
		}
	}
	if len(turns) > 0 && info.Status == model.ThreadNotLoaded && nativeDangling(turns[0]) &&
		nativeOtherWriter(c.Info().CodexHome, string(id), c.Pid(), nativeTurnStart(turns[0])) {
		turns[0].Status = appserver.TurnInProgress
	}
	snap := Snapshot{Info: info}
	if len(turns) > 0 {
		snap.Info.LastTurn = nativeSummary(turns[0])
		n.addProgress(c, id, snap.Info.LastTurn)
	}
	for _, t := range turns {
		if t.Status != appserver.TurnInProgress {
			snap.Result = nativeResult(t)
			break
		}
	}
	if req.Messages && !th.Ephemeral {
		snap.Messages, snap.NextCursor, err = n.readMessages(ctx, c, id, limit, req.Cursor)
		if err != nil {
			return Snapshot{}, err
		}
	}
	return snap, nil
}

// NativeThreadInfo is the metadata view of an App Server thread as thread/read or thread/list
// report it (status as that process sees it; no turn information).
func NativeThreadInfo(th appserver.Thread) model.ThreadInfo {
	id := model.ThreadID(th.ID)
	info := model.ThreadInfo{
		ID:                th.ID,
		Link:              id.Link(),
		Harness:           model.NativeHarness,
		Status:            nativeStatus(th.Status.Type),
		WaitingOnApproval: th.Status.WaitingOnApproval(),
		Title:             nativeTitle(th),
		Cwd:               th.Cwd,
		CreatedAt:         time.Unix(th.CreatedAt, 0).UTC(),
		UpdatedAt:         time.Unix(th.UpdatedAt, 0).UTC(),
	}
	if th.Model != nil {
		info.Model = *th.Model
	}
	// What the App Server reports it runs, not the harness's default.
	info.Configuration = model.NewConfiguration(info.Model, deref(th.ReasoningEffort))
	return info
}

func nativeNotMaterialized(err error) bool { return appserver.RPCHas(err, "not materialized") }

// nativeTurnsList is thread/turns/list that rides out the moment after a thread's first
// turn started, when Codex cannot list its turns yet; the error of a thread for which it
// lasts is returned unchanged.
func nativeTurnsList(ctx context.Context, c *appserver.Client, p appserver.TurnsListParams) (appserver.TurnsListResult, error) {
	return appserver.RetryNotReady(ctx, appserver.NotReadyTurnsList, func() (appserver.TurnsListResult, error) { return c.TurnsList(ctx, p) })
}

// nativeThreadRead is thread/read that rides out the same moment seen from thread/read: the
// rollout file exists but is still empty.
func nativeThreadRead(ctx context.Context, c *appserver.Client, id model.ThreadID) (appserver.Thread, error) {
	return appserver.RetryNotReady(ctx, appserver.NotReadyRead, func() (appserver.Thread, error) { return c.ThreadRead(ctx, string(id)) })
}

// nativeDangling reports a turn that another process reads as interrupted only because it
// has no end recorded yet: a real interrupt records its completion time.
func nativeDangling(t appserver.Turn) bool {
	return t.Status == appserver.TurnInterrupted && t.CompletedAt == nil && t.Error == nil
}

func nativePageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return model.DefaultPageLimit, nil
	case limit < 0 || limit > model.MaxPageLimit:
		return 0, model.Errorf(model.CodeInvalidArgument, fmt.Sprintf("give a limit from 1 to %d", model.MaxPageLimit), "invalid limit %d", limit)
	}
	return limit, nil
}

func nativeTitle(th appserver.Thread) string {
	if th.Name != nil && strings.TrimSpace(*th.Name) != "" {
		return strings.TrimSpace(*th.Name)
	}
	p := strings.Join(strings.Fields(th.Preview), " ")
	if utf8.RuneCountInString(p) <= nativeTitleRunes {
		return p
	}
	r := []rune(p)
	return strings.TrimSpace(string(r[:nativeTitleRunes-1])) + "…"
}

func nativeTime(sec *int64) *time.Time {
	if sec == nil {
		return nil
	}
	t := time.Unix(*sec, 0).UTC()
	return &t
}

func nativeSummary(t appserver.Turn) *model.TurnSummary {
	s := &model.TurnSummary{ID: t.ID, Status: t.Status, StartedAt: nativeTime(t.StartedAt), CompletedAt: nativeTime(t.CompletedAt)}
	if t.Error != nil {
		s.Error = t.Error.Message
	}
	return s
}

func nativeResult(t appserver.Turn) *model.Result {
	r := &model.Result{TurnID: t.ID, Status: t.Status}
	if t.Error != nil {
		r.Error = t.Error.Message
	}
	for i := len(t.Items) - 1; i >= 0; i-- {
		if it := t.Items[i]; it.Type == "agentMessage" && it.Text != "" {
			r.Text = it.Text
			break
		}
	}
	return r
}

// nativeMessages returns the user and assistant messages of a turn, oldest first.
func nativeMessages(t appserver.Turn) []model.Message {
	var out []model.Message
	for _, it := range t.Items {
		var m model.Message
		switch it.Type {
		case "userMessage":
			var parts []string
			for _, p := range it.Content {
				if p.Type == "text" && p.Text != "" {
					parts = append(parts, p.Text)
				}
			}
			m = model.Message{Role: model.RoleUser, Text: strings.Join(parts, "\n")}
		case "agentMessage":
			m = model.Message{Role: model.RoleAssistant, Text: it.Text, Phase: it.Phase}
		default:
			continue
		}
		if m.Text == "" {
			continue // an image-only input or a message cut off before any text
		}
		m.ID, m.TurnID = it.ID, t.ID
		m.At = it.Time(t)
		out = append(out, m)
	}
	return out
}

// nativeCursor is where the next, older page of messages ends. The App Server pages turns, so
// the position is a turn: the first one at or after C (an App Server turns cursor; "" is the
// newest end) whose id is T, of which only the first N messages are still to come. Messages are
// only ever appended to a turn, so a prefix count stays valid while that turn is still running,
// and turns newer than C never shift it; with C empty, T is found by id however many turns
// were added since.
type nativeCursor struct {
	V      int    `json:"v"`
	Thread string `json:"th"`
	C      string `json:"c,omitempty"`
	T      string `json:"t,omitempty"`
	N      *int   `json:"n,omitempty"` // nil: all messages of T
}

const (
	nativeCursorPrefix  = "cx1."
	nativeCursorVersion = 1
	nativeCursorHint    = "pass the nextCursor of an earlier read of the same thread, or no cursor for the newest messages"
)

func (c nativeCursor) encode() string {
	c.V = nativeCursorVersion
	b, _ := json.Marshal(c)
	return nativeCursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func nativeDecodeCursor(s string, id model.ThreadID) (nativeCursor, error) {
	var c nativeCursor
	if s == "" {
		return c, nil
	}
	bad := model.Errorf(model.CodeInvalidArgument, nativeCursorHint, "invalid cursor")
	rest, ok := strings.CutPrefix(s, nativeCursorPrefix)
	if !ok {
		return c, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || json.Unmarshal(b, &c) != nil || c.V != nativeCursorVersion || (c.N != nil && (*c.N <= 0 || c.T == "")) {
		return nativeCursor{}, bad
	}
	if c.Thread != string(id) {
		return nativeCursor{}, model.Errorf(model.CodeInvalidArgument, nativeCursorHint, "the cursor belongs to another thread")
	}
	return c, nil
}

// readMessages returns up to limit messages ending at the cursor position (the newest when
// the cursor is empty), oldest first, and the cursor of the next older page.
func (n *Native) readMessages(ctx context.Context, c *appserver.Client, id model.ThreadID, limit int, cursor string) ([]model.Message, string, error) {
	pos, err := nativeDecodeCursor(cursor, id)
	if err != nil {
		return nil, "", err
	}
	// Most turns hold a user and an assistant message.
	pageTurns := min(limit/2+1, 50)
	var chunks [][]model.Message // newest first
	count := 0
	page := pos.C
	seek := pos.T
	collect := func() []model.Message {
		out := make([]model.Message, 0, count)
		for i := len(chunks) - 1; i >= 0; i-- {
			out = append(out, chunks[i]...)
		}
		return out
	}
	for {
		res, err := nativeTurnsList(ctx, c, appserver.TurnsListParams{ThreadID: string(id), Cursor: page, Limit: pageTurns})
		if nativeNotMaterialized(err) {
			break
		}
		if err != nil {
			if appserver.IsRPC(err) && pos.C != "" && !appserver.UnknownThread(err) {
				return nil, "", model.Errorf(model.CodeInvalidArgument, nativeCursorHint, "the cursor no longer matches the thread: %v", err)
			}
			return nil, "", nativeMapErr(err, id)
		}
		for i, turn := range res.Data {
			msgs := nativeMessages(turn)
			if seek != "" {
				if turn.ID != seek {
					continue
				}
				seek = ""
				if pos.N != nil && *pos.N < len(msgs) {
					msgs = msgs[:*pos.N]
				}
			}
			need := limit - count
			if len(msgs) > need {
				chunks = append(chunks, msgs[len(msgs)-need:])
				count += need
				rest := len(msgs) - need
				return collect(), nativeCursor{Thread: string(id), C: page, T: turn.ID, N: &rest}.encode(), nil
			}
			chunks = append(chunks, msgs)
			count += len(msgs)
			if count == limit {
				switch {
				case i+1 < len(res.Data):
					return collect(), nativeCursor{Thread: string(id), C: page, T: res.Data[i+1].ID}.encode(), nil
				case res.NextCursor != nil && *res.NextCursor != "":
					return collect(), nativeCursor{Thread: string(id), C: *res.NextCursor}.encode(), nil
				}
				return collect(), "", nil
			}
		}
		if res.NextCursor == nil || *res.NextCursor == "" || len(res.Data) == 0 {
			break
		}
		page = *res.NextCursor
	}
	if seek != "" {
		return nil, "", model.Errorf(model.CodeInvalidArgument, nativeCursorHint, "the cursor no longer matches the thread's history")
	}
	return collect(), "", nil
}

// nativeOtherWriter reports whether a process other than our App Server (ownPid) holds the
// writer lock of a thread, CODEX_HOME/thread-writer-locks/<id>.lock, which Codex holds while
// the thread is loaded. With since set, only a holder that was already running at that time
// counts: a process that opened the thread after an earlier one died mid-turn holds the lock
// but is not running that turn. It only looks: taking the lock, even briefly, could make the
// holder fail to open the thread.
func nativeOtherWriter(codexHome, threadID string, ownPid int, since time.Time) bool {
	if codexHome == "" || threadID == "" || strings.ContainsAny(threadID, `/\`) {
		return false
	}
	path := filepath.Join(codexHome, "thread-writer-locks", threadID+".lock")
	for _, pid := range nativeLockHolders(path) {
		if pid == ownPid {
			continue
		}
		if since.IsZero() {
			return true
		}
		// When its start time is unknown the holder is assumed to run the turn: a false stop
		// is worse than a turn that reads as running a while longer.
		if started, ok := nativeProcStart(pid); !ok || !started.After(since) {
			return true
		}
	}
	return false
}

// nativeTurnStart is when a turn began, as precisely as it was recorded: its first item's
// start in milliseconds, else the end of the second it started in.
func nativeTurnStart(t appserver.Turn) time.Time {
	var first time.Time
	for _, it := range t.Items {
		var ts struct {
			StartedAtMs *int64 `json:"startedAtMs"`
		}
		if json.Unmarshal(it.Raw, &ts) == nil && ts.StartedAtMs != nil {
			if at := time.UnixMilli(*ts.StartedAtMs); first.IsZero() || at.Before(first) {
				first = at
			}
		}
	}
	if first.IsZero() && t.StartedAt != nil {
		first = time.Unix(*t.StartedAt+1, 0)
	}
	return first
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
