package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

var extTestConn = Env{CLIPath: "/opt/codexhost/bin/codexhost", Endpoint: "unix:///tmp/h/runtime.sock", Token: "runtime-token"}

// extTestEvents records events. Its callback reads the thread back, as a UI would, to show that
// events are delivered without a lock of the harness held.
type extTestEvents struct {
	mu     sync.Mutex
	events []Event
	x      *External
}

func (r *extTestEvents) on(e Event) {
	if _, err := r.x.Read(context.Background(), e.Thread, ReadRequest{}); err != nil {
		panic(err)
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *extTestEvents) list() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func extTestNew(t *testing.T, dir string, cfg ExternalConfig) (*External, *extTestEvents) {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "shell"
	}
	rec := &extTestEvents{}
	x, err := NewExternal(cfg, ExternalOptions{
		TranscriptDir: dir,
		BaseEnv:       BaseEnv(os.Environ(), nil),
		Conn:          extTestConn,
		OnEvent:       rec.on,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec.x = x
	t.Cleanup(func() { x.Close() })
	return x, rec
}

func extTestSh(script string) []string { return []string{"sh", "-c", script} }

func extTestStart(t *testing.T, x *External) model.ThreadID {
	t.Helper()
	id, err := x.Start(context.Background(), StartRequest{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func extTestSend(t *testing.T, x *External, id model.ThreadID, text string) string {
	t.Helper()
	turn, err := x.Send(context.Background(), id, text)
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

// extTestEventually polls cond until it holds or a generous deadline passes.
func extTestEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// extTestIdle waits for the thread to be idle and returns its snapshot with all messages.
func extTestIdle(t *testing.T, x *External, id model.ThreadID) Snapshot {
	t.Helper()
	var snap Snapshot
	extTestEventually(t, "thread idle", func() bool {
		var err error
		snap, err = x.Read(context.Background(), id, ReadRequest{Messages: true, Limit: model.MaxPageLimit})
		if err != nil {
			t.Fatal(err)
		}
		return snap.Info.Status == model.ThreadIdle
	})
	return snap
}

func extTestReadFile(t *testing.T, path string) string {
	t.Helper()
	var data []byte
	extTestEventually(t, path, func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil && bytes.HasSuffix(data, []byte("\n"))
	})
	return strings.TrimSpace(string(data))
}

// extTestDead reports whether pid has exited (a zombie waiting for its reaper counts).
func extTestDead(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // no /proc (macOS): zombies are reaped there, so ESRCH comes soon
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func TestExternalCompletedTurnAnswersFromStdout(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("cat")})
	id := extTestStart(t, x)
	turn := extTestSend(t, x, id, "hello\nworld")
	snap := extTestIdle(t, x, id)

	if r := snap.Result; r == nil || r.TurnID != turn || r.Status != model.TurnCompleted || r.Text != "hello\nworld" || r.Error != "" {
		t.Fatalf("result = %+v", snap.Result)
	}
	lt := snap.Info.LastTurn
	if lt == nil || lt.ID != turn || lt.Status != model.TurnCompleted || lt.StartedAt == nil || lt.CompletedAt == nil {
		t.Fatalf("last turn = %+v", lt)
	}
	want := []model.Message{{Role: model.RoleUser, Text: "hello\nworld", TurnID: turn}, {Role: model.RoleAssistant, Text: "hello\nworld", TurnID: turn}}
	if !slices.EqualFunc(snap.Messages, want, func(a, b model.Message) bool { return a.Role == b.Role && a.Text == b.Text && a.TurnID == b.TurnID }) {
		t.Fatalf("messages = %+v", snap.Messages)
	}
	if snap.Info.ID != string(id) || snap.Info.Link != "codex://threads/"+string(id) || snap.Info.Harness != "shell" {
		t.Fatalf("info = %+v", snap.Info)
	}
	if p, err := model.ParseThreadID(string(id)); err != nil || p != id || id[14] != '7' {
		t.Fatalf("thread id %q is not a canonical UUIDv7", id)
	}
}

func TestExternalLargePromptAndAnswerDoNotBlock(t *testing.T) {
	t.Parallel()
	// Both exceed a pipe buffer: stdin must be written while stdout is read.
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("cat")})
	id := extTestStart(t, x)
	prompt := strings.Repeat("0123456789abcdef", 1<<16)
	extTestSend(t, x, id, prompt)
	if r := extTestIdle(t, x, id).Result; r == nil || r.Status != model.TurnCompleted || r.Text != prompt {
		t.Fatalf("result: %d bytes", len(r.Text))
	}
}

func TestExternalNonZeroExitFailsAndKeepsStderrOutOfTheTranscript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	x, err := NewExternal(ExternalConfig{Name: "shell", Command: extTestSh("cat >/dev/null; echo partial; echo stderr-secret >&2; exit 3")},
		ExternalOptions{TranscriptDir: dir, BaseEnv: BaseEnv(os.Environ(), nil), Conn: extTestConn,
			Logger: slog.New(slog.NewTextHandler(extTestLockedWriter{&logMu, &logBuf}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	id := extTestStart(t, x)
	extTestSend(t, x, id, "go")
	snap := extTestIdle(t, x, id)
	if r := snap.Result; r == nil || r.Status != model.TurnFailed || r.Error != "exit status 3" || r.Text != "partial\n" {
		t.Fatalf("result = %+v", snap.Result)
	}
	data, err := os.ReadFile(transcriptPath(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("stderr-secret")) {
		t.Fatal("stderr reached the transcript")
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logBuf.String(), "stderr-secret") {
		t.Fatalf("stderr tail not logged for a failed turn: %s", logBuf.String())
	}
}

type extTestLockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w extTestLockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func TestExternalKilledFromOutsideIsInterrupted(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("kill -KILL $$")})
	id := extTestStart(t, x)
	extTestSend(t, x, id, "go")
	if r := extTestIdle(t, x, id).Result; r == nil || r.Status != model.TurnInterrupted || r.Error != "signal: killed" {
		t.Fatalf("result = %+v", r)
	}
}

// extTestGroupScript runs a child in the background and records the shell's pid (the group
// id) and the child's pid in files, then waits.
const extTestGroupScript = `sleep 30 & echo $! > "$CHILD_PID"; echo $$ > "$LEADER_PID"; wait`

func extTestCancelKillsGroup(t *testing.T, script string, grace time.Duration) {
	files := t.TempDir()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh(script), Env: map[string]string{
		"CHILD_PID": filepath.Join(files, "child"), "LEADER_PID": filepath.Join(files, "leader")}})
	x.killGrace = grace
	id := extTestStart(t, x)
	turn := extTestSend(t, x, id, "go")
	child, _ := strconv.Atoi(extTestReadFile(t, filepath.Join(files, "child")))
	leader, _ := strconv.Atoi(extTestReadFile(t, filepath.Join(files, "leader")))
	if child <= 0 || leader <= 0 {
		t.Fatalf("pids: child %d leader %d", child, leader)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := x.Cancel(ctx, id)
	if err != nil || got != turn {
		t.Fatalf("Cancel = %q, %v; want %q", got, err, turn)
	}
	// Cancel returns once the end is recorded, so no polling here: a TERM that did not work
	// would leave the thread active until the context expired.
	snap, err := x.Read(context.Background(), id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.Status != model.ThreadIdle || snap.Result == nil || snap.Result.Status != model.TurnInterrupted || snap.Result.TurnID != turn {
		t.Fatalf("after cancel: status %s result %+v", snap.Info.Status, snap.Result)
	}
	extTestEventually(t, "the shell's child to die", func() bool { return extTestDead(child) })
	extTestEventually(t, "the shell to die", func() bool { return extTestDead(leader) })
	if len(x.Active()) != 0 {
		t.Fatalf("active after cancel: %v", x.Active())
	}
}

func TestExternalCancelInterruptsTheWholeProcessGroup(t *testing.T) {
	t.Parallel()
	// A grace far beyond the test's deadline: only SIGTERM can end this in time.
	extTestCancelKillsGroup(t, extTestGroupScript, time.Hour)
}

func TestExternalCancelKillsAGroupThatIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	extTestCancelKillsGroup(t, `trap "" TERM; `+extTestGroupScript, 50*time.Millisecond)
}

func TestExternalTimeoutFails(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("exec sleep 30"), Timeout: 100 * time.Millisecond})
	id := extTestStart(t, x)
	extTestSend(t, x, id, "go")
	if r := extTestIdle(t, x, id).Result; r == nil || r.Status != model.TurnFailed || r.Error != "timed out after 100ms" {
		t.Fatalf("result = %+v", r)
	}
}

func TestExternalSendWhileRunningIsThreadBusy(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("exec sleep 30")})
	id := extTestStart(t, x)
	turn := extTestSend(t, x, id, "first")
	if got := x.Active(); !slices.Equal(got, []model.ThreadID{id}) {
		t.Fatalf("Active = %v", got)
	}
	_, err := x.Send(context.Background(), id, "second")
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeThreadBusy || !strings.Contains(me.Hint, "codexhost thread wait "+string(id)) || me.Details["turnId"] != turn {
		t.Fatalf("second Send: %v", err)
	}
	if _, err := x.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Cancel(context.Background(), id); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("Cancel of an idle thread: %v", err)
	}
	snap := extTestIdle(t, x, id)
	// The refused message was not recorded.
	if len(snap.Messages) != 1 || snap.Messages[0].Text != "first" {
		t.Fatalf("messages = %+v", snap.Messages)
	}
}

// Serial (t.Setenv): what must not leak is the process's own environment.
func TestExternalEnvIsTheWhitelistPlusRuntimeVariables(t *testing.T) {
	t.Setenv("CODEXHOST_SECRET", "must-not-leak")
	t.Setenv("CODEXHOST_RUNTIME_TOKEN", "outer-runtime-token")
	t.Setenv("SOME_UNLISTED_VAR", "must-not-leak")
	base := BaseEnv(os.Environ(), nil)
	x, err := NewExternal(ExternalConfig{Name: "env", Command: []string{"env"}, Env: map[string]string{"EXTRA_VAR": "from-config"}},
		ExternalOptions{TranscriptDir: t.TempDir(), BaseEnv: base, Conn: extTestConn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	id := extTestStart(t, x)
	extTestSend(t, x, id, "env please")
	r := extTestIdle(t, x, id).Result
	if r == nil || r.Status != model.TurnCompleted {
		t.Fatalf("result = %+v", r)
	}
	var got []string
	sc := bufio.NewScanner(strings.NewReader(r.Text))
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	want := append(slices.Clone(base), "EXTRA_VAR=from-config",
		"CODEXHOST_CLI_PATH="+extTestConn.CLIPath, "CODEXHOST_RUNTIME_ENDPOINT="+extTestConn.Endpoint,
		"CODEXHOST_RUNTIME_TOKEN="+extTestConn.Token, "CODEXHOST_THREAD_ID="+string(id))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("env of the command:\n got %q\nwant %q", got, want)
	}
	if !slices.ContainsFunc(base, func(s string) bool { return strings.HasPrefix(s, "PATH=") }) {
		t.Fatal("base env lacks PATH: the comparison above proves little")
	}
}

func TestExternalRefusesReservedConfigEnv(t *testing.T) {
	t.Parallel()
	_, err := NewExternal(ExternalConfig{Name: "x", Command: []string{"cat"}, Env: map[string]string{"CODEXHOST_RUNTIME_TOKEN": "forged"}},
		ExternalOptions{TranscriptDir: t.TempDir()})
	if !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("err = %v", err)
	}
	if _, err := NewExternal(ExternalConfig{Name: "x"}, ExternalOptions{TranscriptDir: t.TempDir()}); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("no command: err = %v", err)
	}
}

func TestExternalTranscriptIsPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "transcripts")
	x, _ := extTestNew(t, dir, ExternalConfig{Command: extTestSh("cat")})
	id := extTestStart(t, x)
	for path, want := range map[string]os.FileMode{dir: 0o700, transcriptPath(dir, id): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
}

func TestExternalThreadsSurviveARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	x1, _ := extTestNew(t, dir, ExternalConfig{Command: extTestSh("cat")})
	id := extTestStart(t, x1)
	turn := extTestSend(t, x1, id, "remember me")
	before := extTestIdle(t, x1, id)
	x1.Close()

	x2, _ := extTestNew(t, dir, ExternalConfig{Command: extTestSh("cat")})
	if !x2.Owns(context.Background(), id) {
		t.Fatal("restarted harness does not own the thread")
	}
	after, err := x2.Read(context.Background(), id, ReadRequest{Messages: true})
	if err != nil {
		t.Fatal(err)
	}
	if after.Result == nil || after.Result.TurnID != turn || after.Result.Text != "remember me" || len(after.Messages) != 2 ||
		!after.Info.CreatedAt.Equal(before.Info.CreatedAt) || !after.Info.UpdatedAt.Equal(before.Info.UpdatedAt) || after.Info.Cwd != before.Info.Cwd {
		t.Fatalf("after restart:\n got %+v\nwant %+v", after, before)
	}
	extTestSend(t, x2, id, "again")
	if snap := extTestIdle(t, x2, id); len(snap.Messages) != 4 || snap.Result.Text != "again" {
		t.Fatalf("second turn after restart: %+v", snap)
	}

	// Another harness sharing the directory does not claim the thread.
	other, _ := extTestNew(t, dir, ExternalConfig{Name: "other", Command: extTestSh("cat")})
	if other.Owns(context.Background(), id) {
		t.Fatal("harness other owns a thread of harness shell")
	}
	if _, err := other.Read(context.Background(), id, ReadRequest{}); !model.IsCode(err, model.CodeThreadNotFound) {
		t.Fatalf("Read by another harness: %v", err)
	}
}

func TestExternalUnknownThreads(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("cat")})
	for _, id := range []model.ThreadID{"0190a0b0-0000-7000-8000-000000000001", "../../etc/passwd", "0190A0B0-0000-7000-8000-000000000001", ""} {
		if x.Owns(context.Background(), id) {
			t.Errorf("Owns(%q)", id)
		}
		if _, err := x.Read(context.Background(), id, ReadRequest{}); !model.IsCode(err, model.CodeThreadNotFound) {
			t.Errorf("Read(%q): %v", id, err)
		}
		if _, err := x.Send(context.Background(), id, "hi"); !model.IsCode(err, model.CodeThreadNotFound) {
			t.Errorf("Send(%q): %v", id, err)
		}
		if _, err := x.Cancel(context.Background(), id); !model.IsCode(err, model.CodeThreadNotFound) {
			t.Errorf("Cancel(%q): %v", id, err)
		}
	}
}

func TestExternalTornLastLineAfterACrash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	x1, _ := extTestNew(t, dir, ExternalConfig{Command: extTestSh("cat")})
	id := extTestStart(t, x1)
	extTestSend(t, x1, id, "one")
	extTestIdle(t, x1, id)
	x1.Close()
	f, err := os.OpenFile(transcriptPath(dir, id), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"type":"turnStarted","turnId":"x","at":"2026-`)
	f.Close()

	x2, _ := extTestNew(t, dir, ExternalConfig{Command: extTestSh("cat")})
	snap, err := x2.Read(context.Background(), id, ReadRequest{Messages: true})
	if err != nil || snap.Result == nil || snap.Result.Text != "one" || len(snap.Messages) != 2 || snap.Info.LastTurn.Status != model.TurnCompleted {
		t.Fatalf("read after torn line: %+v, %v", snap, err)
	}
	extTestSend(t, x2, id, "two")
	extTestIdle(t, x2, id)
	// Every line of the file parses again: the torn one was cut before appending.
	st, err := transcriptLoad(transcriptPath(dir, id), id)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(transcriptPath(dir, id))
	if int64(len(data)) != st.size || len(st.Turns) != 2 {
		t.Fatalf("file %d bytes, well-formed %d, turns %d", len(data), st.size, len(st.Turns))
	}
}

func TestExternalMessagesPageNewestFirst(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("cat")})
	id := extTestStart(t, x)
	for _, s := range []string{"a", "b", "c"} {
		extTestSend(t, x, id, s)
		extTestIdle(t, x, id)
	}
	read := func(cursor string) Snapshot {
		snap, err := x.Read(context.Background(), id, ReadRequest{Messages: true, Limit: 4, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	texts := func(ms []model.Message) (out []string) {
		for _, m := range ms {
			out = append(out, m.Role[:1]+m.Text)
		}
		return out
	}
	first := read("")
	if got, want := texts(first.Messages), []string{"ub", "ab", "uc", "ac"}; !slices.Equal(got, want) || first.NextCursor == "" {
		t.Fatalf("first page %q next %q, want %q", got, first.NextCursor, want)
	}
	second := read(first.NextCursor)
	if got, want := texts(second.Messages), []string{"ua", "aa"}; !slices.Equal(got, want) || second.NextCursor != "" {
		t.Fatalf("second page %q next %q, want %q", got, second.NextCursor, want)
	}
	if _, err := x.Read(context.Background(), id, ReadRequest{Messages: true, Cursor: "nonsense"}); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("bad cursor: %v", err)
	}
	if snap := read(""); snap.Messages == nil {
		t.Fatal("no messages")
	}
	if snap, _ := x.Read(context.Background(), id, ReadRequest{}); snap.Messages != nil || snap.NextCursor != "" {
		t.Fatalf("messages without asking: %+v", snap)
	}
}

func TestExternalEventsInOrder(t *testing.T) {
	t.Parallel()
	x, rec := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh(`read line; [ "$line" = ok ]`)})
	id := extTestStart(t, x)
	t1 := extTestSend(t, x, id, "ok\n")
	extTestIdle(t, x, id)
	t2 := extTestSend(t, x, id, "not ok\n")
	extTestIdle(t, x, id)
	want := []Event{
		{Thread: id, Status: model.ThreadActive, TurnID: t1, TurnStatus: model.TurnInProgress},
		{Thread: id, Status: model.ThreadIdle, TurnID: t1, TurnStatus: model.TurnCompleted},
		{Thread: id, Status: model.ThreadActive, TurnID: t2, TurnStatus: model.TurnInProgress},
		{Thread: id, Status: model.ThreadIdle, TurnID: t2, TurnStatus: model.TurnFailed},
	}
	var got []Event
	extTestEventually(t, "four events", func() bool { got = rec.list(); return len(got) >= len(want) })
	if !slices.EqualFunc(got, want, func(a, b Event) bool {
		return a.Thread == b.Thread && a.Status == b.Status && a.TurnID == b.TurnID && a.TurnStatus == b.TurnStatus && !a.At.IsZero()
	}) {
		t.Fatalf("events:\n got %+v\nwant %+v", got, want)
	}
}

func TestExternalCloseInterruptsRunningTurns(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("exec sleep 30")})
	id := extTestStart(t, x)
	turn := extTestSend(t, x, id, "go")
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := x.Read(context.Background(), id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.Status != model.ThreadIdle || snap.Result == nil || snap.Result.TurnID != turn || snap.Result.Status != model.TurnInterrupted {
		t.Fatalf("after Close: %+v", snap)
	}
	if _, err := x.Send(context.Background(), id, "more"); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("Send after Close: %v", err)
	}
}

func TestExternalCommandThatCannotStart(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: []string{"/nonexistent/agent"}})
	id := extTestStart(t, x)
	for range 2 { // the failure releases the thread: the second try is not THREAD_BUSY
		if _, err := x.Send(context.Background(), id, "hi"); !model.IsCode(err, model.CodeFailedPrecondition) {
			t.Fatalf("Send: %v", err)
		}
	}
	snap, err := x.Read(context.Background(), id, ReadRequest{Messages: true})
	if err != nil || snap.Info.Status != model.ThreadIdle || snap.Info.LastTurn != nil || len(snap.Messages) != 0 {
		t.Fatalf("after failed start: %+v, %v", snap, err)
	}
}

func TestExternalWorkingDirectory(t *testing.T) {
	t.Parallel()
	cfgDir, reqDir := t.TempDir(), t.TempDir()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh("pwd -P"), Cwd: cfgDir})
	for _, tc := range []struct{ req, want string }{{reqDir, reqDir}, {"", cfgDir}} {
		id, err := x.Start(context.Background(), StartRequest{Cwd: tc.req, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		extTestSend(t, x, id, "where")
		snap := extTestIdle(t, x, id)
		want, _ := filepath.EvalSymlinks(tc.want)
		if got := strings.TrimSpace(snap.Result.Text); got != want || snap.Info.Cwd != tc.want || snap.Info.Model != "m" {
			t.Errorf("cwd %q: process in %q, info %+v", tc.req, got, snap.Info)
		}
	}
	if _, err := x.Start(context.Background(), StartRequest{Cwd: filepath.Join(reqDir, "missing")}); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("missing cwd: %v", err)
	}
}

func TestExternalOutputIsBounded(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh(fmt.Sprintf("head -c %d /dev/zero | tr '\\000' a", extMaxOutput+1000))})
	id := extTestStart(t, x)
	extTestSend(t, x, id, "flood")
	r := extTestIdle(t, x, id).Result
	want := strings.Repeat("a", extMaxOutput) + fmt.Sprintf(extTruncatedMarker, 1000)
	if r == nil || r.Status != model.TurnCompleted || r.Text != want {
		t.Fatalf("result: status %v, %d bytes", r.Status, len(r.Text))
	}
}

func TestExtCaptureCutsOnACharacterBoundary(t *testing.T) {
	t.Parallel()
	c := extReadHead(strings.NewReader("ab\u00e9cd"), 3) // é is two bytes: the cut falls inside it
	if got, want := c.text(), "ab"+fmt.Sprintf(extTruncatedMarker, 4); got != want {
		t.Fatalf("text = %q, want %q", got, want)
	}
}

// TestExternalCrashHelper is the runtime of TestExternalTurnRunningAtACrashReadsInterrupted:
// it starts a long turn, reports it, and waits to be killed.
func TestExternalCrashHelper(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("EXTTEST_CRASH_DIR")
	if dir == "" {
		t.Skip("helper process of TestExternalTurnRunningAtACrashReadsInterrupted")
	}
	leader := filepath.Join(dir, "leader")
	x, err := NewExternal(ExternalConfig{Name: "shell", Command: extTestSh(`echo $$ > "$LEADER_PID"; exec sleep 30`),
		Env: map[string]string{"LEADER_PID": leader}},
		ExternalOptions{TranscriptDir: filepath.Join(dir, "transcripts"), BaseEnv: BaseEnv(os.Environ(), nil)})
	if err != nil {
		t.Fatal(err)
	}
	id, err := x.Start(context.Background(), StartRequest{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := x.Send(context.Background(), id, "long job")
	if err != nil {
		t.Fatal(err)
	}
	extTestReadFile(t, leader)
	fmt.Printf("CRASH %s %s\n", id, turn)
	select {}
}

func TestExternalTurnRunningAtACrashReadsInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestExternalCrashHelper$")
	cmd.Env = append(os.Environ(), "EXTTEST_CRASH_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id model.ThreadID
	var turn string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "CRASH" {
			id, turn = model.ThreadID(f[1]), f[2]
			break
		}
	}
	// The runtime dies without a chance to record anything.
	cmd.Process.Kill()
	cmd.Wait()
	if id == "" {
		t.Fatal("helper did not start a turn")
	}
	// Its turn process is an orphan now; it is not this test's subject.
	if pgid, err := strconv.Atoi(extTestReadFile(t, filepath.Join(dir, "leader"))); err == nil {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}

	tdir := filepath.Join(dir, "transcripts")
	path := transcriptPath(tdir, id)
	x, _ := extTestNew(t, tdir, ExternalConfig{Command: extTestSh("cat")})
	before, _ := os.ReadFile(path)
	snap, err := x.Read(context.Background(), id, ReadRequest{Messages: true})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.Status != model.ThreadIdle || snap.Info.LastTurn == nil || snap.Info.LastTurn.ID != turn ||
		snap.Info.LastTurn.Status != model.TurnInterrupted || snap.Result == nil || snap.Result.Status != model.TurnInterrupted ||
		len(snap.Messages) != 1 || snap.Messages[0].Text != "long job" {
		t.Fatalf("after crash: %+v", snap)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("Read wrote to the transcript")
	}

	// The next turn writes the interrupted end first; from then on the file says so itself.
	t2 := extTestSend(t, x, id, "again")
	extTestIdle(t, x, id)
	st, err := transcriptLoad(path, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.unended) != 0 || len(st.Turns) != 2 || st.Turns[0].ID != turn || st.Turns[0].Status != model.TurnInterrupted ||
		st.Turns[0].Error != transcriptRestartError || st.Turns[1].ID != t2 || st.Turns[1].Status != model.TurnCompleted {
		t.Fatalf("transcript after the next turn: unended %v turns %+v", st.unended, st.Turns)
	}
}

// A thinking option given at delegation reaches an external harness as CODEXHOST_EFFORT on
// every turn, as a marker block's effort does.
func TestExternalThinkingReachesTheCommandAsEffort(t *testing.T) {
	t.Parallel()
	x, _ := extTestNew(t, t.TempDir(), ExternalConfig{Command: extTestSh(`cat >/dev/null; env`)})
	id, err := x.Start(context.Background(), StartRequest{Cwd: t.TempDir(), Thinking: "high"})
	if err != nil {
		t.Fatal(err)
	}
	extTestSend(t, x, id, "env")
	if snap := extTestIdle(t, x, id); snap.Result == nil || effortOf(snap.Result.Text) != "high" {
		t.Fatalf("the turn's environment: %+v", snap.Result)
	}
}
