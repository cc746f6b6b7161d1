// Package hosttest builds a whole runtime Host on a private temporary home for the tests of
// capability packages, driven the way the CLI drives it: through the runtime API on the
// home's Unix socket, authenticated with the runtime token or a configured client token.
//
// Every Host has a home of its own (and a Codex home and fake model of its own with Codex),
// so tests that use one run with t.Parallel.
//
// It imports runtime, so only external test packages (package marker_test, …) may use it;
// the root package's own tests keep their fixtures in runtime/testhost_test.go.
package hosttest

import (
	"context"
	"maps"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Wait bounds every poll; it is only reached when something is broken.
const Wait = 30 * time.Second

// harnesses are the external harnesses of every test home. "slow" runs until a file named
// "gate" appears in the thread's working directory (or about 30 s pass), so a test decides
// when its turn ends.
var harnesses = map[string]config.Harness{
	"shell": {Command: []string{"sh", "-c", "cat"}},
	"slow":  {Command: []string{"sh", "-c", `i=0; while [ ! -e gate ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; cat`}},
	"fail":  {Command: []string{"sh", "-c", "exit 3"}},
	"env":   {Command: []string{"env"}},
}

// Harnesses returns a copy of the test homes' external harnesses, for a test to extend.
func Harnesses() map[string]config.Harness { return maps.Clone(harnesses) }

// Options say what the test home holds.
type Options struct {
	Codex     bool                                 // start the real App Server on a fake-model Codex home
	FakeOpts  []fakemodel.Option                   // for the fake model when Codex is set
	Clients   []string                             // client names to configure; tokens in Host.Tokens
	Operators []string                             // clients given every operator scope and both controls
	Grants    map[string]config.Grant              // clients given these grants
	Now       func() time.Time                     // injected clock
	TaskAfter func(time.Duration) <-chan time.Time // injected clock of task timeouts
	Environ   []string                             // added to the runtime's environment
	Harnesses map[string]config.Harness            // nil: Harnesses()
}

// Host is a runtime Host on a private short temporary home.
type Host struct {
	*runtime.Host
	T         testing.TB
	Home      string
	Cfg       *config.Config // as saved in the home's config.toml
	Opts      runtime.Options
	Tokens    map[string]string
	CodexHome string
	Fake      *fakemodel.Server
	served    chan struct{}
	closed    bool

	// One connection per token for the helpers, as a real client keeps one: polling through
	// fresh connections would pass the runtime's per-client connection cap.
	connMu sync.Mutex
	conns  map[string]*api.Client
}

// New opens a Host on a new home; the test's cleanup closes it.
func New(t testing.TB, ho Options) *Host {
	t.Helper()
	th := &Host{T: t, Tokens: map[string]string{}}
	var environ []string
	if ho.Codex {
		bin := codextest.CodexBin(t)
		th.Fake = fakemodel.Start(t, ho.FakeOpts...)
		th.CodexHome = codextest.NewHome(t, th.Fake.URL())
		environ = append(codextest.Env(th.CodexHome), "CODEXHOST_CODEX_BIN="+bin)
	} else {
		// A codex binary that cannot run keeps these hosts off any App Server, even one on PATH.
		environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	}
	environ = append(environ, ho.Environ...)

	// Unix socket paths must stay under 107 bytes: t.TempDir() is too long.
	home, err := os.MkdirTemp("", "chh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	th.Home = home
	th.Cfg = th.config(ho)
	th.Opts = runtime.Options{Home: home, CLIPath: "/usr/local/bin/codexhost-test", Environ: environ, Version: "test", Now: ho.Now, TaskAfter: ho.TaskAfter}
	th.open()
	t.Cleanup(th.Shutdown)
	return th
}

// config saves the home's config.toml with its harnesses and clients.
func (th *Host) config(ho Options) *config.Config {
	t := th.T
	cfg := &config.Config{Harnesses: ho.Harnesses}
	if cfg.Harnesses == nil {
		cfg.Harnesses = Harnesses()
	}
	add := func(name string, g config.Grant) {
		tok, err := cfg.AddClient(name, g)
		if err != nil {
			t.Fatal(err)
		}
		th.Tokens[name] = tok
	}
	for _, name := range ho.Clients {
		add(name, config.Grant{})
	}
	for _, name := range ho.Operators {
		add(name, config.OperatorGrant())
	}
	for name, g := range ho.Grants {
		add(name, g)
	}
	if _, ok := th.Tokens[config.OperatorClient]; ok {
		th.Tokens[config.OperatorClient] = "" // the operator connects by who it is
	}
	if err := config.Save(th.Home, cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// SaveConfig saves Cfg and restarts the Host, so the edit applies.
func (th *Host) SaveConfig() {
	th.T.Helper()
	if err := config.Save(th.Home, th.Cfg); err != nil {
		th.T.Fatal(err)
	}
	th.Restart()
}

func (th *Host) open() {
	th.T.Helper()
	h, err := runtime.Open(context.Background(), th.Opts)
	if err != nil {
		th.T.Fatalf("open host: %v", err)
	}
	th.Host, th.closed = h, false
	th.served = make(chan struct{})
	go func() {
		defer close(th.served)
		_ = h.Serve(context.Background())
	}()
}

// Shutdown closes the helpers' connections and the Host, and waits for it to stop serving.
func (th *Host) Shutdown() {
	if th.closed {
		return
	}
	th.closed = true
	th.connMu.Lock()
	for _, c := range th.conns {
		_ = c.Close()
	}
	th.conns = nil
	th.connMu.Unlock()
	if err := th.Host.Close(); err != nil {
		th.T.Errorf("close host: %v", err)
	}
	<-th.served
}

// Restart closes the Host and opens a new one on the same home, as a runtime restart does.
func (th *Host) Restart() {
	th.T.Helper()
	th.Shutdown()
	th.open()
}

// Dial opens a connection of its own with token.
func (th *Host) Dial(token string) *api.Client {
	th.T.Helper()
	c, err := api.Dial(context.Background(), th.Endpoints()[0], token)
	if err != nil {
		th.T.Fatalf("dial: %v", err)
	}
	th.T.Cleanup(func() { _ = c.Close() })
	return c
}

// shared is the connection the helpers use for token, dialled on first use and again once
// it was lost or closed.
func (th *Host) shared(token string) *api.Client {
	th.T.Helper()
	th.connMu.Lock()
	c := th.conns[token]
	th.connMu.Unlock()
	if c != nil && c.Err() == nil {
		return c
	}
	c = th.Dial(token)
	th.connMu.Lock()
	if th.conns == nil {
		th.conns = map[string]*api.Client{}
	}
	th.conns[token] = c
	th.connMu.Unlock()
	return c
}

// RuntimeClient connects as a process the host started.
func (th *Host) RuntimeClient() *api.Client { return th.shared(th.RuntimeToken()) }

// Client connects as a configured external client (the home's operator with no token).
func (th *Host) Client(name string) *api.Client {
	th.T.Helper()
	tok, ok := th.Tokens[name]
	if !ok {
		th.T.Fatalf("no client %q configured", name)
	}
	return th.shared(tok)
}

// ThreadRecords counts the threads registered in the store.
func (th *Host) ThreadRecords() int {
	th.T.Helper()
	n := 0
	if err := th.Store().Threads(func(model.ThreadRecord) error { n++; return nil }); err != nil {
		th.T.Fatal(err)
	}
	return n
}
