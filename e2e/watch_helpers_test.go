package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The crash tests need the fault switch (CODEXHOST_TEST_FAULT), which only a faultpoints
// build contains, so they use a second binary next to the one TestMain built.
var wcBuild struct {
	once sync.Once
	path string
	err  error
}

func wcBinary(t *testing.T) string {
	t.Helper()
	wcBuild.once.Do(func() {
		if bin == "" {
			wcBuild.err = errors.New("TestMain did not build the binary")
			return
		}
		path := filepath.Join(filepath.Dir(bin), "codexhost-faultpoints")
		build := exec.Command("go", "build", "-tags", "faultpoints", "-o", path, ".")
		build.Dir = ".."
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			wcBuild.err = fmt.Errorf("building codexhost with faultpoints: %v\n%s", err, out)
			return
		}
		wcBuild.path = path
	})
	if wcBuild.err != nil {
		t.Fatal(wcBuild.err)
	}
	return wcBuild.path
}

// wcHome is a runtime home for the crash tests: external harnesses only, one client, and at
// most one serve process at a time.
type wcHome struct {
	t     *testing.T
	bin   string
	dir   string // CODEXHOST_HOME
	gates string // a file named after a thread id here ends that thread's gated turn
	work  string // cwd of CLI runs and threads
	token string
	serve *wcServe
}

// wcConfig is the config.toml of every crash test home. The work harness reads its task:
// "gate ..." runs until the thread's gate file appears, "<seconds> ..." sleeps that long;
// both then echo the task. The recipient harness swallows its input, so a recipient's
// transcript holds the notification texts as user messages only.
const wcConfig = `[harnesses.work]
command = ["sh", "-c", "read d rest; if [ \"$d\" = gate ]; then while [ ! -e \"$WC_GATES/$CODEXHOST_THREAD_ID\" ]; do sleep 0.02; done; else sleep \"$d\"; fi; echo \"$d $rest\""]
env = { WC_GATES = %q }

[harnesses.rcpt]
command = ["sh", "-c", "cat >/dev/null"]
`

// wcClient is the client of every crash test home; "client:wc" is its recipient name.
const wcClient = "wc"

func newWCHome(t *testing.T) *wcHome {
	t.Helper()
	// A short path: the runtime's socket lives in the home and must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "chc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h := &wcHome{t: t, bin: wcBinary(t), dir: dir, gates: filepath.Join(dir, "gates"), work: filepath.Join(dir, "work")}
	for _, d := range []string{h.gates, h.work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), fmt.Appendf(nil, wcConfig, h.gates), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.cli("client", "add", wcClient, "--json")
	var out struct{ Token string }
	if r.err != nil || r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Token == "" {
		t.Fatalf("client add: %s", r)
	}
	h.token = out.Token
	t.Cleanup(func() {
		if h.serve != nil {
			h.serve.signal(syscall.SIGKILL)
		}
	})
	return h
}

func (h *wcHome) env(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + h.work, "CODEXHOST_HOME=" + h.dir}, extra...)
}

// wcServe is one `codexhost serve` process.
type wcServe struct {
	cmd    *exec.Cmd
	exited chan struct{}
	stderr *syncBuffer
}

// start runs serve with extra environment and waits until it listens.
func (h *wcHome) start(extraEnv ...string) *wcServe {
	h.t.Helper()
	if h.serve != nil {
		h.t.Fatal("serve is already running")
	}
	cmd := exec.Command(h.bin, "serve")
	cmd.Env = h.env(extraEnv...)
	cmd.Dir = h.work
	s := &wcServe{cmd: cmd, exited: make(chan struct{}), stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "listening on") {
				ok = true
				listening <- true
			}
		}
		if !ok {
			listening <- false
		}
		_ = cmd.Wait()
		close(s.exited)
	}()
	h.serve = s
	select {
	case ok := <-listening:
		if !ok {
			<-s.exited
			h.serve = nil
			h.t.Fatalf("serve exited before listening: %v\n%s", cmd.ProcessState, s.stderr)
		}
	case <-time.After(20 * time.Second):
		h.kill()
		h.t.Fatalf("serve did not listen within 20 s\n%s", s.stderr)
	}
	return s
}

// signal sends sig to serve and waits for it to exit.
func (s *wcServe) signal(sig syscall.Signal) {
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// kill SIGKILLs the running serve, as a crash would, and waits until it is gone.
func (h *wcHome) kill() crashSpan {
	span := crashSpan{killed: time.Now()}
	h.serve.signal(syscall.SIGKILL)
	h.serve = nil
	span.gone = time.Now()
	return span
}

// stop ends the running serve with SIGTERM, a clean shutdown.
func (h *wcHome) stop() {
	h.serve.signal(syscall.SIGTERM)
	if st := h.serve.cmd.ProcessState; st == nil || !st.Success() {
		h.t.Errorf("serve did not exit cleanly after SIGTERM: %v\n%s", st, h.serve.stderr)
	}
	h.serve = nil
}

// wcResult is one CLI run. err is set only when the process could not run or timed out.
type wcResult struct {
	args           []string
	stdout, stderr string
	code           int
	err            error
}

func (r wcResult) String() string {
	return fmt.Sprintf("codexhost %s: exit %d (%v)\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, r.err, r.stdout, r.stderr)
}

// errCode is the code of the {"error":…} document on stderr, "" if there is none.
func (r wcResult) errCode() string {
	var doc struct {
		Error struct{ Code string } `json:"error"`
	}
	if json.Unmarshal([]byte(r.stderr), &doc) != nil {
		return ""
	}
	return doc.Error.Code
}

// unreachable reports a call that failed because the runtime was gone or went away during it.
func (r wcResult) unreachable() bool {
	return r.err == nil && r.code == 1 && r.errCode() == "RUNTIME_UNREACHABLE"
}

// cli runs the binary as the home's client. It never touches t, so goroutines may call it.
func (h *wcHome) cli(args ...string) wcResult { return h.cliEnv(nil, args...) }

// cliEnv is cli with extra environment.
func (h *wcHome) cliEnv(extraEnv []string, args ...string) wcResult {
	env := h.env(extraEnv...)
	if h.token != "" {
		env = append(env, "CODEXHOST_CLIENT_TOKEN="+h.token)
	}
	stdout, stderr, code, err := execCLI(h.bin, h.work, env, args)
	return wcResult{args: args, stdout: stdout, stderr: stderr, code: code, err: err}
}

// must runs a CLI command that has to succeed and decodes its JSON output into v.
func (h *wcHome) must(v any, args ...string) {
	h.t.Helper()
	r := h.cli(args...)
	if r.err != nil || r.code != 0 {
		h.t.Fatalf("want success\n%s", r)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
			h.t.Fatalf("decoding output: %v\n%s", err, r)
		}
	}
}

// The parts of the CLI's JSON the crash tests read.
type (
	wcWatch struct {
		ID         string    `json:"id"`
		Thread     string    `json:"thread"`
		Notify     string    `json:"notify"`
		State      string    `json:"state"`
		Result     string    `json:"result"`
		SourceTurn string    `json:"sourceTurn"`
		Reason     string    `json:"reason"`
		Deadline   time.Time `json:"deadline"`
	}
	wcWatchResult struct {
		State    string   `json:"state"`
		Watch    *wcWatch `json:"watch"`
		Existing bool     `json:"existing"`
		Status   string   `json:"status"`
	}
	wcWatches struct {
		Watching      []wcWatch `json:"watching"`
		Pending       []wcWatch `json:"pendingDelivery"`
		Undeliverable []wcWatch `json:"undeliverable"`
	}
	wcMessage struct {
		Role string    `json:"role"`
		Text string    `json:"text"`
		At   time.Time `json:"at"`
	}
	wcEvent struct {
		Cursor string    `json:"cursor"`
		Type   string    `json:"type"`
		Watch  string    `json:"watch"`
		Thread string    `json:"thread"`
		Link   string    `json:"link"`
		Result string    `json:"result"`
		Reason string    `json:"reason"`
		At     time.Time `json:"at"`
	}
	wcThread struct {
		ID       string `json:"id"`
		Link     string `json:"link"`
		Status   string `json:"status"`
		LastTurn *struct {
			ID          string     `json:"id"`
			Status      string     `json:"status"`
			CompletedAt *time.Time `json:"completedAt"`
		} `json:"lastTurn"`
	}
)

// delegate starts a thread on a harness with a task and returns it.
func (h *wcHome) delegate(harness, task string) wcThread {
	h.t.Helper()
	var res struct{ Thread wcThread }
	h.must(&res, "delegate", "start", "--harness", harness, "--task", task)
	if res.Thread.ID == "" {
		h.t.Fatalf("delegate start printed no thread")
	}
	return res.Thread
}

// watches runs `thread watches`.
func (h *wcHome) watches() wcWatches {
	h.t.Helper()
	var w wcWatches
	h.must(&w, "thread", "watches")
	return w
}

// settle waits until no watch is watching or pending: every notification is delivered or
// given up.
func (h *wcHome) settle(timeout time.Duration) wcWatches {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		w := h.watches()
		if len(w.Watching) == 0 && len(w.Pending) == 0 {
			return w
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("watches did not settle within %v: %d watching, %d pending: %+v", timeout, len(w.Watching), len(w.Pending), w)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// messages reads a thread's whole transcript, oldest first.
func (h *wcHome) messages(id string) []wcMessage {
	h.t.Helper()
	var all []wcMessage
	cursor := ""
	for {
		args := []string{"thread", "read", id, "--view", "messages", "--limit", "100"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		var page struct {
			Messages   []wcMessage `json:"messages"`
			NextCursor string      `json:"nextCursor"`
		}
		h.must(&page, args...)
		all = append(page.Messages, all...) // pages go back in time
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}

// events reads the client's whole event log.
func (h *wcHome) events() []wcEvent {
	h.t.Helper()
	r := h.cli("client", "events")
	if r.err != nil || r.code != 0 {
		h.t.Fatalf("client events\n%s", r)
	}
	var out []wcEvent
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	for {
		var ev wcEvent
		if err := dec.Decode(&ev); err == io.EOF {
			return out
		} else if err != nil {
			h.t.Fatalf("client events: %v\n%s", err, r)
		}
		out = append(out, ev)
	}
}

// openGate ends the gated turn of a thread.
func (h *wcHome) openGate(id string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.gates, id), nil, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// wcNotice is one mention of a watched thread in a notification turn.
type wcNotice struct {
	at             time.Time
	result, reason string
}

// wcNotices returns, for each thread link named in a notification turn of the recipient's
// transcript, the mentions in transcript order.
func wcNotices(msgs []wcMessage) map[string][]wcNotice {
	out := map[string][]wcNotice{}
	for _, m := range msgs {
		if m.Role != "user" || !strings.HasPrefix(m.Text, "codexhost watch notification") {
			continue
		}
		for _, line := range strings.Split(m.Text, "\n") {
			rest, ok := strings.CutPrefix(line, "- thread ")
			if !ok {
				continue
			}
			// "- thread LINK stopped: RESULT (turn T); REASON. Read it with: …"
			link, rest, _ := strings.Cut(rest, " stopped: ")
			rest, _, _ = strings.Cut(rest, ". Read it with:")
			result, _, _ := strings.Cut(rest, " ")
			_, reason, _ := strings.Cut(rest, "; ")
			out[link] = append(out[link], wcNotice{at: m.At, result: strings.TrimRight(result, ".;"), reason: reason})
		}
	}
	return out
}
