package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
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
