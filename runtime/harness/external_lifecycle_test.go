package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/codexhost/codexhost/model"
)

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
