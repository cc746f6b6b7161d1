package harness

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

const transcriptTestID = model.ThreadID("0190a0b0-0000-7000-8000-0000000000aa")

var transcriptTestT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func transcriptTestAt(sec int) time.Time {
	return transcriptTestT0.Add(time.Duration(sec) * time.Second)
}

func transcriptTestCreate(t *testing.T, dir string) *transcriptState {
	t.Helper()
	st, err := transcriptCreate(dir, transcriptEntry{V: transcriptVersion, Type: transcriptThread,
		ID: string(transcriptTestID), Harness: "shell", Cwd: "/work", Model: "m1", At: transcriptTestAt(0)})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// transcriptTestTurn appends a whole turn to st and its file.
func transcriptTestTurn(t *testing.T, dir string, st *transcriptState, turn string, sec int, user, answer, status, errText string) {
	t.Helper()
	entries := []transcriptEntry{
		{V: 1, Type: transcriptTurnStarted, TurnID: turn, At: transcriptTestAt(sec)},
		{V: 1, Type: transcriptMessage, TurnID: turn, Role: model.RoleUser, Text: user, At: transcriptTestAt(sec)},
		{V: 1, Type: transcriptMessage, TurnID: turn, Role: model.RoleAssistant, Text: answer, At: transcriptTestAt(sec + 1)},
		{V: 1, Type: transcriptTurnEnded, TurnID: turn, Status: status, Error: errText, At: transcriptTestAt(sec + 1)},
	}
	transcriptTestAppend(t, dir, st, entries)
}

func transcriptTestAppend(t *testing.T, dir string, st *transcriptState, entries []transcriptEntry) {
	t.Helper()
	n, err := transcriptAppend(transcriptPath(dir, transcriptTestID), st.size, entries, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		st.apply(e)
	}
	st.size = n
}

func transcriptTestLoad(t *testing.T, dir string) *transcriptState {
	t.Helper()
	st, err := transcriptLoad(transcriptPath(dir, transcriptTestID), transcriptTestID)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// transcriptTestSame compares what a reader sees of two states.
func transcriptTestSame(t *testing.T, got, want *transcriptState) {
	t.Helper()
	if got.ID != want.ID || got.Harness != want.Harness || got.Cwd != want.Cwd || got.Model != want.Model ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) || got.size != want.size {
		t.Fatalf("thread differs:\n got %+v\nwant %+v", got, want)
	}
	if !slices.EqualFunc(got.Turns, want.Turns, func(a, b transcriptTurn) bool {
		return a.ID == b.ID && a.Status == b.Status && a.Error == b.Error && a.StartedAt.Equal(b.StartedAt) &&
			a.EndedAt.Equal(b.EndedAt) && a.assistant == b.assistant
	}) {
		t.Fatalf("turns differ:\n got %+v\nwant %+v", got.Turns, want.Turns)
	}
	if !slices.EqualFunc(got.Messages, want.Messages, func(a, b model.Message) bool {
		return a.Role == b.Role && a.Text == b.Text && a.TurnID == b.TurnID && a.At.Equal(b.At)
	}) {
		t.Fatalf("messages differ:\n got %+v\nwant %+v", got.Messages, want.Messages)
	}
}

func TestTranscriptReloadEqualsLiveState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := transcriptTestCreate(t, dir)
	transcriptTestTurn(t, dir, st, "t1", 10, "first?", "one", model.TurnCompleted, "")
	transcriptTestTurn(t, dir, st, "t2", 20, "second?", "two", model.TurnFailed, "exit status 3")

	loaded := transcriptTestLoad(t, dir)
	transcriptTestSame(t, loaded, st)
	if len(loaded.Turns) != 2 || loaded.Turns[1].Status != model.TurnFailed || loaded.Turns[1].Error != "exit status 3" {
		t.Fatalf("turns = %+v", loaded.Turns)
	}
	r := loaded.result()
	if r == nil || r.TurnID != "t2" || r.Status != model.TurnFailed || r.Text != "two" || r.Error != "exit status 3" {
		t.Fatalf("result = %+v", r)
	}
	if !loaded.UpdatedAt.Equal(transcriptTestAt(21)) || !loaded.CreatedAt.Equal(transcriptTestT0) {
		t.Fatalf("times: created %v updated %v", loaded.CreatedAt, loaded.UpdatedAt)
	}
}

func TestTranscriptFileModes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "transcripts")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// An existing directory is tightened: it is about to hold conversations.
	if err := transcriptEnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	transcriptTestCreate(t, dir)
	for path, want := range map[string]os.FileMode{dir: 0o700, transcriptPath(dir, transcriptTestID): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
}

func TestTranscriptTornLastLineIsIgnoredAndCutBeforeAppend(t *testing.T) {
	t.Parallel()
	for name, tail := range map[string]string{
		"unterminated":        `{"v":1,"type":"message","turnId":"t2","role":"user","te`,
		"terminated garbage":  "\x00\x00\x00\n",
		"unterminated zeroes": "\x00\x00\x00\x00",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			st := transcriptTestCreate(t, dir)
			transcriptTestTurn(t, dir, st, "t1", 10, "q", "a", model.TurnCompleted, "")
			path := transcriptPath(dir, transcriptTestID)
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tail); err != nil {
				t.Fatal(err)
			}
			f.Close()

			loaded := transcriptTestLoad(t, dir)
			transcriptTestSame(t, loaded, st)

			transcriptTestTurn(t, dir, loaded, "t2", 20, "q2", "a2", model.TurnCompleted, "")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(tail)) {
				t.Fatalf("torn line still in the file:\n%s", data)
			}
			again := transcriptTestLoad(t, dir)
			transcriptTestSame(t, again, loaded)
			if len(again.Turns) != 2 {
				t.Fatalf("turns = %+v", again.Turns)
			}
		})
	}
}

func TestTranscriptDamagedMiddleLineIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := transcriptTestCreate(t, dir)
	path := transcriptPath(dir, transcriptTestID)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()
	st.size += int64(len("not json\n"))
	transcriptTestTurn(t, dir, st, "t1", 10, "q", "a", model.TurnCompleted, "")
	if _, err := transcriptLoad(path, transcriptTestID); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("load of a damaged transcript: err = %v", err)
	}
}

func TestTranscriptStartedTurnWithoutEndReadsInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := transcriptTestCreate(t, dir)
	transcriptTestTurn(t, dir, st, "t1", 10, "q", "a", model.TurnCompleted, "")
	transcriptTestAppend(t, dir, st, []transcriptEntry{
		{V: 1, Type: transcriptTurnStarted, TurnID: "t2", At: transcriptTestAt(20)},
		{V: 1, Type: transcriptMessage, TurnID: "t2", Role: model.RoleUser, Text: "long job", At: transcriptTestAt(20)},
	})
	path := transcriptPath(dir, transcriptTestID)
	before, _ := os.ReadFile(path)

	loaded := transcriptTestLoad(t, dir)
	last := loaded.lastTurn()
	if last.ID != "t2" || last.Status != model.TurnInterrupted || last.Error != transcriptRestartError || !last.EndedAt.Equal(transcriptTestAt(20)) {
		t.Fatalf("last turn = %+v", last)
	}
	if r := loaded.result(); r.TurnID != "t2" || r.Status != model.TurnInterrupted || r.Text != "" {
		t.Fatalf("result = %+v", r)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("loading changed the file")
	}

	// Writing the owed end makes the file say what readers inferred, and nothing is owed after.
	pending := loaded.pendingEnds()
	if len(pending) != 1 || pending[0].TurnID != "t2" || pending[0].Status != model.TurnInterrupted {
		t.Fatalf("pending = %+v", pending)
	}
	transcriptTestAppend(t, dir, loaded, pending)
	if len(loaded.pendingEnds()) != 0 {
		t.Fatalf("still pending after writing: %+v", loaded.pendingEnds())
	}
	again := transcriptTestLoad(t, dir)
	transcriptTestSame(t, again, loaded)
	if len(again.unended) != 0 {
		t.Fatalf("unended after the end was written: %v", again.unended)
	}
}

func TestTranscriptSkipsUnknownEntryTypes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := transcriptTestCreate(t, dir)
	transcriptTestAppend(t, dir, st, []transcriptEntry{{V: 2, Type: "reasoning", TurnID: "t1", Text: "hmm", At: transcriptTestAt(5)}})
	transcriptTestTurn(t, dir, st, "t1", 10, "q", "a", model.TurnCompleted, "")
	loaded := transcriptTestLoad(t, dir)
	if len(loaded.Messages) != 2 || len(loaded.Turns) != 1 {
		t.Fatalf("messages %+v turns %+v", loaded.Messages, loaded.Turns)
	}
}

func TestTranscriptReadMetaAndMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := transcriptLoad(transcriptPath(dir, transcriptTestID), transcriptTestID); !transcriptIsNotExist(err) {
		t.Fatalf("missing file: err = %v", err)
	}
	// A crash while creating leaves a torn thread line: the thread does not exist.
	if err := os.WriteFile(transcriptPath(dir, transcriptTestID), []byte(`{"v":1,"type":"thr`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := transcriptLoad(transcriptPath(dir, transcriptTestID), transcriptTestID); !transcriptIsNotExist(err) {
		t.Fatalf("torn thread line: load err = %v", err)
	}
	if _, err := transcriptReadMeta(transcriptPath(dir, transcriptTestID)); !transcriptIsNotExist(err) {
		t.Fatalf("torn thread line: meta err = %v", err)
	}
	os.Remove(transcriptPath(dir, transcriptTestID))
	transcriptTestCreate(t, dir)
	meta, err := transcriptReadMeta(transcriptPath(dir, transcriptTestID))
	if err != nil || meta.ID != string(transcriptTestID) || meta.Harness != "shell" || meta.Cwd != "/work" {
		t.Fatalf("meta = %+v, %v", meta, err)
	}
}

func TestTranscriptPagingNewestPageFirst(t *testing.T) {
	t.Parallel()
	st := &transcriptState{turnIndex: map[string]int{}}
	for i := range 7 {
		st.Messages = append(st.Messages, model.Message{Role: model.RoleUser, Text: fmt.Sprint(i)})
	}
	texts := func(ms []model.Message) string {
		var b strings.Builder
		for _, m := range ms {
			b.WriteString(m.Text)
		}
		return b.String()
	}
	var got []string
	cursor := ""
	for range 10 {
		page, next, err := st.page(3, cursor)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, texts(page))
		if next == "" {
			break
		}
		cursor = next
	}
	if want := []string{"456", "123", "0"}; !slices.Equal(got, want) {
		t.Fatalf("pages = %q, want %q", got, want)
	}

	page, next, err := st.page(0, "")
	if err != nil || len(page) != 7 || next != "" {
		t.Fatalf("default limit: %d messages, next %q, err %v", len(page), next, err)
	}

	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, bad := range []string{"garbage!", enc("msg:0"), enc("msg:8"), enc("msg:-1"), enc("msg:03"), enc("idx:3"), enc("msg:")} {
		if _, _, err := st.page(3, bad); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("cursor %q: err = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	for _, limit := range []int{-1, model.MaxPageLimit + 1} {
		if _, _, err := st.page(limit, ""); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("limit %d: err = %v, want INVALID_ARGUMENT", limit, err)
		}
	}
	if page, _, err := st.page(model.MaxPageLimit, ""); err != nil || len(page) != 7 {
		t.Fatalf("limit %d: %d messages, err %v", model.MaxPageLimit, len(page), err)
	}
}
