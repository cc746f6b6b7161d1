package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// testVersion is stamped into the binary under test, so that a version it prints can only
// have come from this build.
const testVersion = "0.0.0-e2e"

// bin is the codexhost binary under test, built once by TestMain.
var bin string

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "codexhost-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "codexhost")
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X github.com/codexhost/codexhost/cli.Version="+testVersion, ".")
	build.Dir = ".." // the module root; tests run in the package directory
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building codexhost: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// Timeouts of one process; generous because the machine may be shared.
const (
	cliTimeout   = 30 * time.Second
	serveTimeout = 20 * time.Second
	stopTimeout  = 10 * time.Second
)

// hostConfig describes the runtime a test needs.
type hostConfig struct {
	// harnesses are the external harnesses of config.toml: name → command.
	harnesses map[string][]string
	// sandbox is the Codex sandbox_mode of native threads: "" keeps codextest's read-only,
	// "workspace-write+network" is workspace-write with network access.
	sandbox string
	// listen adds a loopback TCP listener.
	listen bool
	// env is added to the environment of serve.
	env []string
	// pathFirst is put in front of serve's PATH.
	pathFirst string
	// config is appended to config.toml before serve starts.
	config string
}

// host is one runtime home with `codexhost serve` running on it (or stopped, between a stop
// and the next start).
type host struct {
	t         testing.TB
	cfg       hostConfig
	serveEnv  []string // the whole environment of serve
	home      string   // CODEXHOST_HOME
	codexHome string
	codexBin  string
	fake      *fakemodel.Server
	work      string // working directory of CLI runs
	cliHome   string // HOME of CLI runs: empty, so no ~/.codexhost is found by accident

	serve     *exec.Cmd
	exited    chan struct{}
	stderr    *syncBuffer
	unix, tcp string // endpoints of the running serve
}

// startHost writes the homes and starts serve; everything stops when the test ends.
func startHost(t testing.TB, cfg hostConfig) *host {
	t.Helper()
	codexBin := codextest.CodexBin(t)
	h := &host{t: t, cfg: cfg, codexBin: codexBin, fake: fakemodel.Start(t), work: t.TempDir(), cliHome: t.TempDir()}
	h.codexHome = codextest.NewHome(t, h.fake.URL())
	setSandbox(t, h.codexHome, cfg.sandbox)

	// The socket lives in the home, and a Unix socket path must stay under 108 bytes: the
	// test's own temporary directories are too deep.
	home, err := os.MkdirTemp("", "che")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	h.home = home
	var conf strings.Builder
	names := make([]string, 0, len(cfg.harnesses))
	for name := range cfg.harnesses {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&conf, "[harnesses.%s]\ncommand = %s\n", name, tomlArray(cfg.harnesses[name]))
	}
	conf.WriteString(cfg.config)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	env := codextest.Env(h.codexHome)
	if cfg.pathFirst != "" {
		for i, kv := range env {
			if rest, ok := strings.CutPrefix(kv, "PATH="); ok {
				env[i] = "PATH=" + cfg.pathFirst + string(os.PathListSeparator) + rest
			}
		}
	}
	env = append(env, "CODEXHOST_HOME="+home, "CODEXHOST_CODEX_BIN="+codexBin)
	h.serveEnv = append(env, cfg.env...)
	t.Cleanup(func() { h.stop(syscall.SIGTERM) })
	h.start()
	return h
}

// setSandbox rewrites the sandbox of a codextest home.
func setSandbox(t testing.TB, codexHome, sandbox string) {
	t.Helper()
	if sandbox == "" {
		return
	}
	path := filepath.Join(codexHome, "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const readOnly = "sandbox_mode = \"read-only\"\n"
	if strings.Count(string(b), readOnly) != 1 {
		t.Fatalf("codextest config.toml has no single %q line:\n%s", readOnly, b)
	}
	var extra string
	mode := sandbox
	if m, ok := strings.CutSuffix(sandbox, "+network"); ok {
		mode, extra = m, "\n[sandbox_workspace_write]\nnetwork_access = true\n"
	}
	conf := strings.Replace(string(b), readOnly, "sandbox_mode = "+tomlString(mode)+"\n", 1) + extra
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
}

func tomlString(s string) string {
	b, _ := json.Marshal(s) // JSON string escapes are valid TOML
	return string(b)
}

func tomlArray(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = tomlString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// start runs serve and waits for its "listening on" line.
func (h *host) start() {
	t := h.t
	t.Helper()
	args := []string{"serve"}
	if h.cfg.listen {
		args = append(args, "--listen", "127.0.0.1:0")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = h.serveEnv
	cmd.Dir = h.home
	// Its own process group, so that stopping it reaches everything it started there.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	h.stderr = &syncBuffer{}
	cmd.Stderr = h.stderr
	announced := &announceWriter{lines: make(chan string, 1)}
	cmd.Stdout = announced
	// Wait also waits for the output to be copied; a process that inherited serve's output
	// must not hold it up for long.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.serve, h.exited = cmd, make(chan struct{})
	lines := announced.lines
	exited := h.exited
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	select {
	case line := <-lines:
		_, eps, _ := strings.Cut(line, "listening on ")
		h.unix, h.tcp = "", ""
		for _, ep := range strings.Split(eps, " and ") {
			switch {
			case strings.HasPrefix(ep, "unix://"):
				h.unix = ep
			case strings.HasPrefix(ep, "tcp://"):
				h.tcp = ep
			}
		}
		if h.unix == "" || (h.cfg.listen && h.tcp == "") {
			t.Fatalf("serve announced %q", line)
		}
	case <-exited:
		t.Fatalf("serve exited before listening: %v\n%s", cmd.ProcessState, h.stderr)
	case <-time.After(serveTimeout):
		h.stop(syscall.SIGKILL)
		t.Fatalf("serve did not announce its endpoints within %v\n%s", serveTimeout, h.stderr)
	}
}

// stop signals serve's process group and waits for serve and the processes it started
// (the App Server runs in a group of its own) to be gone.
func (h *host) stop(sig syscall.Signal) {
	t := h.t
	if h.serve == nil {
		return
	}
	pid := h.serve.Process.Pid
	children := childPids(pid)
	_ = syscall.Kill(-pid, sig)
	select {
	case <-h.exited:
	case <-time.After(stopTimeout):
		t.Errorf("serve did not stop within %v after %v; killing it", stopTimeout, sig)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-h.exited
	}
	// The App Server ends when its stdin closes with serve; wait for that rather than let
	// it write into a CODEX_HOME that is being removed.
	for _, c := range children {
		if !waitGone(c, stopTimeout) {
			t.Errorf("process %d started by serve outlived it by %v; killing it", c, stopTimeout)
			_ = syscall.Kill(c, syscall.SIGKILL)
		}
	}
	if t.Failed() {
		t.Logf("serve stderr:\n%s", h.stderr)
	}
	h.serve = nil
}

// restart stops serve with sig and starts it again on the same home.
func (h *host) restart(sig syscall.Signal) {
	h.t.Helper()
	h.stop(sig)
	h.start()
}

// childPids lists the processes whose parent is pid.
func childPids(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(child); ok && ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// procStat reads the parent pid and state of a process from /proc/PID/stat.
func procStat(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	// The command name is in parentheses and may hold spaces; the fields after it are plain.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// waitGone waits until pid has exited (a zombie counts as exited).
func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if _, state, ok := procStat(pid); !ok || state == "Z" {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// addClient creates a client with `codexhost client add NAME --json` and returns its token.
func (h *host) addClient(name string) string {
	h.t.Helper()
	r := run(h.t, h.work, []string{"HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home}, "client", "add", name, "--json")
	var out struct {
		Client, Token string
	}
	r.decode(h.t, &out)
	if out.Client != name || len(out.Token) < 32 {
		h.t.Fatalf("client add printed %s", r.stdout)
	}
	return out.Token
}

// asClient runs the CLI outside any host process with a client token: the environment has
// the home and the token, nothing else of codexhost.
func (h *host) asClient(token string, args ...string) result {
	h.t.Helper()
	return run(h.t, h.work, []string{"HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home, "CODEXHOST_CLIENT_TOKEN=" + token}, args...)
}

// result is what one CLI process did.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("codexhost %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// run runs the binary in dir with PATH, LANG and env: nothing else is inherited, so a
// codexhost connection of whoever runs the tests cannot leak in.
func run(t testing.TB, dir string, env []string, args ...string) result {
	t.Helper()
	stdout, stderr, code, err := execCLI(bin, dir, append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}, env...), args)
	r := result{args: args, stdout: stdout, stderr: stderr, code: code}
	if err != nil {
		t.Fatalf("codexhost %s: %v\n%s", strings.Join(args, " "), err, r)
	}
	return r
}

// execCLI runs bin in dir with exactly env, for at most cliTimeout. A non-zero exit is
// returned as code; err is set only when the process could not run or timed out.
func execCLI(bin, dir string, env, args []string) (stdout, stderr string, code int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && errors.As(err, &exit) && ctx.Err() == nil {
		code, err = exit.ExitCode(), nil
	}
	return out.String(), errOut.String(), code, err
}

// decode checks the CLI contract of a success (exit 0, one JSON document on stdout, nothing
// on stderr) and decodes the document into v.
func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("want success\n%s", r)
	}
	if err := strictJSON(r.stdout, v); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, r)
	}
}

// failure checks the CLI contract of a failure (exit 1, nothing on stdout, one
// {"error":{…}} document on stderr) and returns the error.
func (r result) failure(t testing.TB) cliError {
	t.Helper()
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("want exit 1 with nothing on stdout\n%s", r)
	}
	var doc struct {
		Error *cliError `json:"error"`
	}
	if err := strictJSON(r.stderr, &doc); err != nil || doc.Error == nil {
		t.Fatalf("stderr is not one {\"error\":…} document (%v)\n%s", err, r)
	}
	if doc.Error.Code == "" || doc.Error.Message == "" || doc.Error.Hint == "" {
		t.Fatalf("error lacks code, message or hint\n%s", r)
	}
	return *doc.Error
}

// strictJSON decodes exactly one JSON value followed by a newline.
func strictJSON(s string, v any) error {
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		return errors.New("want exactly one line")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// The CLI contract as agents see it. Only the fields the tests look at; field names are the
// contract, so they are spelled here rather than borrowed from the implementation.
type (
	cliError struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Hint    string         `json:"hint"`
		Details map[string]any `json:"details"`
	}
	origin struct {
		Kind         string `json:"kind"`
		ParentThread string `json:"parentThread"`
		Client       string `json:"client"`
		DelegationID string `json:"delegationId"`
	}
	threadInfo struct {
		ID      string   `json:"id"`
		Link    string   `json:"link"`
		Harness string   `json:"harness"`
		Status  string   `json:"status"`
		Cwd     string   `json:"cwd"`
		Origin  *origin  `json:"origin"`
		Refs    []string `json:"refs"`
	}
	turnResult struct {
		Status string `json:"status"`
		Text   string `json:"text"`
		Error  string `json:"error"`
	}
	startResult struct {
		Thread       threadInfo `json:"thread"`
		DelegationID string     `json:"delegationId"`
		Existing     bool       `json:"existing"`
	}
	readResult struct {
		Thread   threadInfo  `json:"thread"`
		Result   *turnResult `json:"result"`
		TimedOut *bool       `json:"timedOut"`
		Messages []struct {
			Role string `json:"role"`
			Text string `json:"text"`
		} `json:"messages"`
	}
	listResult struct {
		Threads    []threadInfo `json:"threads"`
		NextCursor string       `json:"nextCursor"`
	}
)

// delegate runs `delegate start` as a client and returns the child.
func (h *host) delegate(token string, args ...string) startResult {
	h.t.Helper()
	var res startResult
	h.asClient(token, append([]string{"delegate", "start"}, args...)...).decode(h.t, &res)
	if res.Thread.ID == "" {
		h.t.Fatalf("delegate start %v printed no thread id", args)
	}
	return res
}

// waitCompleted waits for a thread's turn to end and checks that it completed.
func (h *host) waitCompleted(token, id string) readResult {
	h.t.Helper()
	var res readResult
	h.asClient(token, "thread", "wait", id, "--timeout-ms", "20000").decode(h.t, &res)
	if res.TimedOut == nil || *res.TimedOut || res.Result == nil || res.Result.Status != "completed" {
		h.t.Fatalf("thread %s did not complete: %+v (result %+v)", id, res, res.Result)
	}
	return res
}

func (h *host) read(token, id string) readResult {
	h.t.Helper()
	var res readResult
	h.asClient(token, "thread", "read", id).decode(h.t, &res)
	return res
}

// listIDs runs `thread list` with args and returns the thread ids, sorted.
func (h *host) listIDs(token string, args ...string) []string {
	h.t.Helper()
	var res listResult
	h.asClient(token, append([]string{"thread", "list", "--limit", "100"}, args...)...).decode(h.t, &res)
	ids := make([]string, 0, len(res.Threads))
	for _, th := range res.Threads {
		ids = append(ids, th.ID)
	}
	slices.Sort(ids)
	return ids
}

func sorted(ids ...string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// announceWriter takes serve's stdout and passes on the first line that announces the
// endpoints.
type announceWriter struct {
	mu    sync.Mutex
	buf   []byte
	sent  bool
	lines chan string
}

func (w *announceWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for !w.sent {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		if strings.Contains(line, "listening on") {
			w.sent = true
			w.lines <- line
		}
	}
	return len(p), nil
}

// syncBuffer collects a process's stderr while tests read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
