package harness

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
)

// An external thread lives in one JSON Lines file, <dir>/<threadID>.jsonl: a thread line, then
// for every turn a turnStarted line, its messages and a turnEnded line. The file is only ever
// appended to, so a message index is a stable cursor and a crash can only tear the last line.

// transcriptVersion is written on every entry. Readers skip entry types they do not know, so a
// newer binary may add entries without making old transcripts unreadable to older ones.
const transcriptVersion = 1

// Entry types.
const (
	transcriptThread      = "thread"
	transcriptTurnStarted = "turnStarted"
	transcriptMessage     = "message"
	transcriptTurnEnded   = "turnEnded"
)

// File modes: transcripts hold conversation content, so only the owner may read them.
const (
	transcriptDirMode  fs.FileMode = 0o700
	transcriptFileMode fs.FileMode = 0o600
)

// transcriptRestartError is the error of a turn that was running when the runtime stopped.
const transcriptRestartError = "runtime stopped during the turn"

// transcriptEntry is one line of a transcript. Fields not used by a type are omitted.
type transcriptEntry struct {
	V    int       `json:"v"`
	Type string    `json:"type"`
	At   time.Time `json:"at"`

	// thread
	ID      string `json:"id,omitempty"`
	Harness string `json:"harness,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	Model   string `json:"model,omitempty"`
	Effort  string `json:"effort,omitempty"`

	// turnStarted, message, turnEnded
	TurnID string `json:"turnId,omitempty"`
	Role   string `json:"role,omitempty"`
	Text   string `json:"text,omitempty"`
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// transcriptTurn is a turn rebuilt from a transcript.
type transcriptTurn struct {
	ID        string
	Status    string // model.Turn*
	Error     string
	StartedAt time.Time
	EndedAt   time.Time // zero while the turn runs
	assistant int       // index of the turn's assistant message in Messages, -1 if none
}

// transcriptState is a thread rebuilt from its transcript, kept up to date by applying the
// entries as they are written, so that what is in memory is what a restart would read.
type transcriptState struct {
	ID        model.ThreadID
	Harness   string
	Cwd       string
	Model     string
	Effort    string // the reasoning effort every turn gets as CODEXHOST_EFFORT
	CreatedAt time.Time
	UpdatedAt time.Time
	Turns     []transcriptTurn
	Messages  []model.Message

	turnIndex map[string]int
	// unended lists turns that the file shows started and never ended: the runtime stopped while
	// they ran. They read as interrupted; their turnEnded lines are written by the next append.
	unended []string
	// size is the length of the well-formed part of the file. Anything after it (a line torn by
	// a crash or a failed write) is cut off before the next append.
	size int64
}

// transcriptPath is the file of thread id in dir.
func transcriptPath(dir string, id model.ThreadID) string {
	return filepath.Join(dir, string(id)+".jsonl")
}

// transcriptEnsureDir creates dir private to the owner, tightening its mode if it exists.
func transcriptEnsureDir(dir string) error {
	if err := os.MkdirAll(dir, transcriptDirMode); err != nil {
		return fmt.Errorf("transcript directory: %w", err)
	}
	if err := os.Chmod(dir, transcriptDirMode); err != nil {
		return fmt.Errorf("transcript directory: %w", err)
	}
	return nil
}

// transcriptCreate writes the transcript of a new thread and syncs it with its directory entry,
// so that a thread id handed out survives a crash.
func transcriptCreate(dir string, meta transcriptEntry) (*transcriptState, error) {
	line, err := transcriptEncode([]transcriptEntry{meta})
	if err != nil {
		return nil, err
	}
	path := transcriptPath(dir, model.ThreadID(meta.ID))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, transcriptFileMode)
	if err != nil {
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	_, err = f.Write(line)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = transcriptSyncDir(dir)
	}
	if err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	s := &transcriptState{turnIndex: map[string]int{}}
	s.apply(meta)
	s.size = int64(len(line))
	return s, nil
}

func transcriptSyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// transcriptLoad rebuilds thread id from its file without writing anything. An unterminated or
// unparsable last line is a write torn by a crash and is ignored; a bad line elsewhere means
// the file was damaged and is an error. Turns started and never ended read as interrupted.
// A missing file gives an error that matches fs.ErrNotExist.
func transcriptLoad(path string, id model.ThreadID) (*transcriptState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &transcriptState{turnIndex: map[string]int{}}
	var off int64
	lineNo := 0
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break // torn: the newline is written last, so the line never completed
		}
		line := data[:nl]
		data = data[nl+1:]
		lineNo++
		if len(bytes.TrimSpace(line)) > 0 {
			var e transcriptEntry
			if err := json.Unmarshal(line, &e); err != nil {
				if len(data) == 0 {
					break // a torn last line that happens to end in a newline byte
				}
				return nil, fmt.Errorf("transcript %s: line %d: %w", path, lineNo, err)
			}
			if s.ID == "" && e.Type != transcriptThread {
				return nil, fmt.Errorf("transcript %s: line %d: thread entry missing", path, lineNo)
			}
			s.apply(e)
		}
		off += int64(nl + 1)
	}
	if s.ID == "" {
		// A crash while the thread was being created; its id was never handed out.
		return nil, fmt.Errorf("transcript %s: %w", path, fs.ErrNotExist)
	}
	if s.ID != id {
		return nil, fmt.Errorf("transcript %s: belongs to thread %s", path, s.ID)
	}
	s.size = off
	for i := range s.Turns {
		t := &s.Turns[i]
		if t.Status == model.TurnInProgress {
			t.Status, t.Error, t.EndedAt = model.TurnInterrupted, transcriptRestartError, s.UpdatedAt
			s.unended = append(s.unended, t.ID)
		}
	}
	return s, nil
}

// transcriptMetaMax bounds the thread line: it holds only ids, a path and a model name.
const transcriptMetaMax = 1 << 20

// transcriptReadMeta reads only the thread line of the file at path, so that ownership can be
// checked without loading a whole conversation. A file without a complete thread line reads
// as missing, as transcriptLoad has it.
func transcriptReadMeta(path string) (transcriptEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return transcriptEntry{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, transcriptMetaMax)).ReadBytes('\n')
	if errors.Is(err, io.EOF) {
		return transcriptEntry{}, fmt.Errorf("transcript %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return transcriptEntry{}, err
	}
	var e transcriptEntry
	if err := json.Unmarshal(line, &e); err != nil || e.Type != transcriptThread {
		return transcriptEntry{}, fmt.Errorf("transcript %s: thread entry missing", path)
	}
	return e, nil
}

// apply folds one entry into the state. It is the only place that interprets entries, both
// when loading a file and when recording a live turn.
func (s *transcriptState) apply(e transcriptEntry) {
	switch e.Type {
	case transcriptThread:
		if s.ID != "" {
			return
		}
		s.ID, s.Harness, s.Cwd, s.Model, s.Effort, s.CreatedAt = model.ThreadID(e.ID), e.Harness, e.Cwd, e.Model, e.Effort, e.At
	case transcriptTurnStarted:
		if _, dup := s.turnIndex[e.TurnID]; dup || e.TurnID == "" {
			return
		}
		s.turnIndex[e.TurnID] = len(s.Turns)
		s.Turns = append(s.Turns, transcriptTurn{ID: e.TurnID, Status: model.TurnInProgress, StartedAt: e.At, assistant: -1})
	case transcriptMessage:
		// A message's id is its turn and its place in the transcript: stable, as lines are
		// only appended.
		s.Messages = append(s.Messages, model.Message{ID: fmt.Sprintf("%s/%d", e.TurnID, len(s.Messages)), Role: e.Role, Text: e.Text, TurnID: e.TurnID, At: e.At})
		if i, ok := s.turnIndex[e.TurnID]; ok && e.Role == model.RoleAssistant {
			s.Turns[i].assistant = len(s.Messages) - 1
		}
	case transcriptTurnEnded:
		i, ok := s.turnIndex[e.TurnID]
		if !ok {
			return
		}
		t := &s.Turns[i]
		t.Status, t.Error, t.EndedAt = e.Status, e.Error, e.At
		s.unended = transcriptRemove(s.unended, e.TurnID)
	default:
		return // written by a newer binary
	}
	if e.At.After(s.UpdatedAt) {
		s.UpdatedAt = e.At
	}
}

func transcriptRemove(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// pendingEnds are the turnEnded entries owed for turns interrupted by a runtime stop. Writing
// them turns what a reader infers into what the file says.
func (s *transcriptState) pendingEnds() []transcriptEntry {
	var out []transcriptEntry
	for _, id := range s.unended {
		t := s.Turns[s.turnIndex[id]]
		out = append(out, transcriptEntry{V: transcriptVersion, Type: transcriptTurnEnded, TurnID: id,
			Status: t.Status, Error: t.Error, At: t.EndedAt})
	}
	return out
}

// title is the thread's title, as Codex titles a session by its preview: the first line of
// the task (the first user message), read from the thread's own transcript.
func (s *transcriptState) title() string {
	for _, m := range s.Messages {
		if m.Role == model.RoleUser {
			return model.TaskTitle(m.Text)
		}
	}
	return ""
}

// lastTurn is the newest turn, running or not.
func (s *transcriptState) lastTurn() *transcriptTurn {
	if len(s.Turns) == 0 {
		return nil
	}
	return &s.Turns[len(s.Turns)-1]
}

// result is the outcome of the newest finished turn; nil before any turn finished.
func (s *transcriptState) result() *model.Result {
	for i := len(s.Turns) - 1; i >= 0; i-- {
		t := s.Turns[i]
		if t.Status == model.TurnInProgress {
			continue
		}
		r := &model.Result{TurnID: t.ID, Status: t.Status, Error: t.Error}
		if t.assistant >= 0 {
			r.Text = s.Messages[t.assistant].Text
		}
		return r
	}
	return nil
}

func (t *transcriptTurn) summary() *model.TurnSummary {
	started := t.StartedAt
	ts := &model.TurnSummary{ID: t.ID, Status: t.Status, Error: t.Error, StartedAt: &started}
	if !t.EndedAt.IsZero() {
		ended := t.EndedAt
		ts.CompletedAt = &ended
	}
	return ts
}

func transcriptEncode(entries []transcriptEntry) ([]byte, error) {
	var buf bytes.Buffer
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode transcript entry: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// transcriptAppend writes entries after the first size bytes of the file at path, cutting off
// anything beyond them first (a torn line), and syncs when sync is set. It returns the new
// well-formed size. One write per call keeps a batch from being split by another writer.
func transcriptAppend(path string, size int64, entries []transcriptEntry, sync bool) (int64, error) {
	data, err := transcriptEncode(entries)
	if err != nil {
		return size, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return size, fmt.Errorf("append transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return size, fmt.Errorf("append transcript: %w", err)
	}
	if fi.Size() < size {
		return size, fmt.Errorf("append transcript %s: file shrank from %d to %d bytes", path, size, fi.Size())
	}
	if fi.Size() > size {
		if err := f.Truncate(size); err != nil {
			return size, fmt.Errorf("append transcript: %w", err)
		}
	}
	if _, err := f.WriteAt(data, size); err != nil {
		return size, fmt.Errorf("append transcript: %w", err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return size, fmt.Errorf("append transcript: %w", err)
		}
	}
	return size + int64(len(data)), nil
}

// Message cursors name the end (exclusive) of the next, older page. Messages are only ever
// appended, so an index stays valid for the life of the thread.
const transcriptCursorPrefix = "msg:"

const transcriptCursorHint = "pass the nextCursor of an earlier read of the same thread, or no cursor for the newest messages"

func transcriptCursor(end int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(transcriptCursorPrefix + strconv.Itoa(end)))
}

// transcriptPageLimit checks a requested page size: 0 means the default.
func transcriptPageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return model.DefaultPageLimit, nil
	case limit < 0 || limit > model.MaxPageLimit:
		return 0, model.Errorf(model.CodeInvalidArgument, fmt.Sprintf("give a limit from 1 to %d", model.MaxPageLimit),
			"invalid limit %d", limit)
	}
	return limit, nil
}

// page returns one page of messages: the newest page when cursor is empty, each page oldest
// first, and the cursor of the next older page ("" when there is none).
func (s *transcriptState) page(limit int, cursor string) ([]model.Message, string, error) {
	limit, err := transcriptPageLimit(limit)
	if err != nil {
		return nil, "", err
	}
	end := len(s.Messages)
	if cursor != "" {
		raw, derr := base64.RawURLEncoding.DecodeString(cursor)
		n, ok := 0, false
		if rest, found := strings.CutPrefix(string(raw), transcriptCursorPrefix); derr == nil && found {
			var perr error
			n, perr = strconv.Atoi(rest)
			ok = perr == nil && n > 0 && n <= len(s.Messages) && strconv.Itoa(n) == rest
		}
		if !ok {
			return nil, "", model.Errorf(model.CodeInvalidArgument, transcriptCursorHint, "invalid cursor")
		}
		end = n
	}
	start := max(end-limit, 0)
	msgs := make([]model.Message, end-start)
	copy(msgs, s.Messages[start:end])
	next := ""
	if start > 0 {
		next = transcriptCursor(start)
	}
	return msgs, next, nil
}

// transcriptIsNotExist reports whether err means the thread has no transcript.
func transcriptIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
