package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/store"
)

// These tests drive a Host the way the CLI does: through the runtime API on the home's Unix
// socket, authenticated with the runtime token or a configured client token.

// testWait bounds every poll; it is only reached when something is broken.
const testWait = 30 * time.Second

// The external harnesses of every test home. "slow" runs until a file named "gate" appears in
// the thread's working directory (or about 30 s pass), so a test decides when its turn ends.
var testHarnesses = map[string]config.Harness{
	"shell": {Command: []string{"sh", "-c", "cat"}},
	"slow":  {Command: []string{"sh", "-c", `i=0; while [ ! -e gate ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; cat`}},
	"fail":  {Command: []string{"sh", "-c", "exit 3"}},
	"env":   {Command: []string{"env"}},
}

type hostOptions struct {
	codex     bool                      // start the real App Server on a fake-model Codex home
	fakeOpts  []fakemodel.Option        // for the fake model when codex is set
	clients   []string                  // client names to configure; tokens in testHost.tokens
	operators []string                  // clients given every operator scope and both controls
	grants    map[string]config.Grant   // clients given these grants
	now       func() time.Time          // injected clock
	environ   []string                  // added to the runtime's environment
	harnesses map[string]config.Harness // nil: testHarnesses
}

// testHost is a Host on a private short temporary home.
type testHost struct {
	*Host
	t         testing.TB
	home      string
	cfg       *config.Config // as saved in the home's config.toml
	opts      Options
	tokens    map[string]string
	codexHome string
	fake      *fakemodel.Server
	served    chan struct{}
	closed    bool

	// One connection per token for the helpers below, as a real client keeps one: polling
	// through fresh connections would pass the runtime's per-client connection cap.
	connMu sync.Mutex
	conns  map[string]*api.Client
}

func newTestHost(t testing.TB, ho hostOptions) *testHost {
	t.Helper()
	th := &testHost{t: t, tokens: map[string]string{}}
	var environ []string
	if ho.codex {
		bin := codextest.CodexBin(t)
		th.fake = fakemodel.Start(t, ho.fakeOpts...)
		th.codexHome = codextest.NewHome(t, th.fake.URL())
		environ = append(codextest.Env(th.codexHome), "CODEXHOST_CODEX_BIN="+bin)
	} else {
		// A codex binary that cannot run keeps these hosts off any App Server, even one on PATH.
		environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	}
	environ = append(environ, ho.environ...)

	// Unix socket paths must stay under 107 bytes: t.TempDir() is too long.
	home, err := os.MkdirTemp("", "chh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	th.home = home

	cfg := &config.Config{Harnesses: ho.harnesses}
	if cfg.Harnesses == nil {
		cfg.Harnesses = testHarnesses
	}
	for _, name := range ho.clients {
		tok, err := cfg.AddClient(name, config.Grant{})
		if err != nil {
			t.Fatal(err)
		}
		th.tokens[name] = tok
	}
	for _, name := range ho.operators {
		tok, err := cfg.AddClient(name, config.OperatorGrant())
		if err != nil {
			t.Fatal(err)
		}
		th.tokens[name] = tok
	}
	for name, g := range ho.grants {
		tok, err := cfg.AddClient(name, g)
		if err != nil {
			t.Fatal(err)
		}
		th.tokens[name] = tok
	}
	if _, ok := th.tokens[config.OperatorClient]; ok {
		th.tokens[config.OperatorClient] = "" // the operator connects by who it is
	}
	if err := config.Save(home, cfg); err != nil {
		t.Fatal(err)
	}
	th.cfg = cfg
	th.opts = Options{Home: home, CLIPath: "/usr/local/bin/codexhost-test", Environ: environ, Version: "test", Now: ho.now}
	th.open()
	t.Cleanup(th.close)
	return th
}

func (th *testHost) open() {
	th.t.Helper()
	h, err := Open(context.Background(), th.opts)
	if err != nil {
		th.t.Fatalf("open host: %v", err)
	}
	th.Host, th.closed = h, false
	th.served = make(chan struct{})
	go func() {
		defer close(th.served)
		_ = h.Serve(context.Background())
	}()
}

func (th *testHost) close() {
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
		th.t.Errorf("close host: %v", err)
	}
	<-th.served
}

// restart closes the Host and opens a new one on the same home, as a runtime restart does.
func (th *testHost) restart() {
	th.t.Helper()
	th.close()
	th.open()
}

func (th *testHost) dial(token string) *api.Client {
	th.t.Helper()
	c, err := api.Dial(context.Background(), th.Endpoints()[0], token)
	if err != nil {
		th.t.Fatalf("dial: %v", err)
	}
	th.t.Cleanup(func() { _ = c.Close() })
	return c
}

// shared is the connection the helpers use for token, dialled on first use and again once
// it was lost or closed.
func (th *testHost) shared(token string) *api.Client {
	th.t.Helper()
	th.connMu.Lock()
	c := th.conns[token]
	th.connMu.Unlock()
	if c != nil && c.Err() == nil {
		return c
	}
	c = th.dial(token)
	th.connMu.Lock()
	if th.conns == nil {
		th.conns = map[string]*api.Client{}
	}
	th.conns[token] = c
	th.connMu.Unlock()
	return c
}

// runtimeClient connects as a process the host started.
func (th *testHost) runtimeClient() *api.Client { return th.shared(th.RuntimeToken()) }

// client connects as a configured external client (the home's operator with no token).
func (th *testHost) client(name string) *api.Client {
	th.t.Helper()
	tok, ok := th.tokens[name]
	if !ok {
		th.t.Fatalf("no client %q configured", name)
	}
	return th.shared(tok)
}

func (th *testHost) transcriptDir() string { return filepath.Join(th.home, "transcripts") }

// transcripts lists the external threads' transcript files.
func (th *testHost) transcripts() []string {
	th.t.Helper()
	entries, err := os.ReadDir(th.transcriptDir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		th.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func (th *testHost) transcript(id string) []byte {
	th.t.Helper()
	b, err := os.ReadFile(filepath.Join(th.transcriptDir(), id+".jsonl"))
	if err != nil {
		th.t.Fatal(err)
	}
	return b
}

// threadRecords counts the threads registered in the store.
func (th *testHost) threadRecords() int {
	th.t.Helper()
	n := 0
	if err := th.Store().Threads(func(model.ThreadRecord) error { n++; return nil }); err != nil {
		th.t.Fatal(err)
	}
	return n
}

// loadedHere lists the threads loaded in the host's App Server.
func loadedHere(t *testing.T, th *testHost) []string {
	t.Helper()
	c, err := th.native.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ThreadLoadedList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res.Data
}

// dumpStore reads every key and value of a closed home's database, whatever its prefix.
func dumpStore(t *testing.T, home string) map[string]string {
	t.Helper()
	out := readStore(t, home)
	// Guards against a scan that silently sees nothing: every test home has a thread by then.
	found := false
	for k := range out {
		found = found || strings.HasPrefix(k, store.PrefixOrigin+"/")
	}
	if !found {
		t.Fatalf("the store dump holds no origin record: %v", out)
	}
	return out
}

// readStore reads every key and value of a closed home's database.
func readStore(t *testing.T, home string) map[string]string {
	t.Helper()
	opts := badger.DefaultOptions(filepath.Join(home, store.DBDir)).WithLogger(nil).WithReadOnly(true)
	// A child forked by a parallel test may still keep the closed runtime's lock until it
	// execs (badger closes its lock without unlocking): wait that out.
	db, err := badger.Open(opts)
	for deadline := time.Now().Add(2 * time.Second); err != nil && strings.Contains(err.Error(), "Cannot acquire directory lock") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		db, err = badger.Open(opts)
	}
	if err != nil {
		t.Fatalf("open the store read-only: %v", err)
	}
	defer db.Close()
	out := map[string]string{}
	err = db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().KeyCopy(nil))] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// call invokes method and decodes its result into a T.
func call[T any](t testing.TB, c *api.Client, method string, params any) T {
	t.Helper()
	var out T
	if err := c.Call(context.Background(), method, params, &out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return out
}

// callRaw invokes method and returns its result as JSON, to check the wire shape.
func callRaw(t testing.TB, c *api.Client, method string, params any) json.RawMessage {
	t.Helper()
	return call[json.RawMessage](t, c, method, params)
}

// callErr invokes method, which must fail with code, a message and a hint.
func callErr(t testing.TB, c *api.Client, method string, params any, code model.Code) *model.Error {
	t.Helper()
	err := c.Call(context.Background(), method, params, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != code {
		t.Fatalf("%s: want %s, got %v", method, code, err)
	}
	if me.Message == "" || me.Hint == "" {
		t.Fatalf("%s: %s without message or hint: %+v", method, code, me)
	}
	return me
}

func delegate(t testing.TB, c *api.Client, p api.DelegateStartParams) api.DelegateStartResult {
	t.Helper()
	return call[api.DelegateStartResult](t, c, api.MethodDelegateStart, p)
}

func readThread(t testing.TB, c *api.Client, id string) api.ThreadReadResult {
	t.Helper()
	return call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id})
}

// waitStopped waits until the thread has no turn running and returns the wait result.
func waitStopped(t testing.TB, c *api.Client, id string) api.ThreadReadResult {
	t.Helper()
	res := call[api.ThreadReadResult](t, c, api.MethodThreadWait, api.ThreadWaitParams{
		ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(int(testWait / time.Millisecond))})
	if res.TimedOut == nil || *res.TimedOut {
		t.Fatalf("thread %s still running after %v: %+v", id, testWait, res.Thread)
	}
	return res
}

// eventually polls cond every 10 ms until it holds or testWait passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	pollUntil(t, what, testWait, 10*time.Millisecond, cond)
}

// pollUntil polls cond every interval until it holds or wait passes.
func pollUntil(t testing.TB, what string, wait, interval time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(interval)
	}
}

// openGate lets the "slow" harness's running turn in dir finish.
func openGate(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func threadIDs(threads []model.ThreadInfo) []string {
	ids := make([]string, len(threads))
	for i, th := range threads {
		ids[i] = th.ID
	}
	return ids
}

// listAll follows nextCursor until the last page and returns every id in order.
func listAll(t *testing.T, c *api.Client, p api.ThreadListParams) ([]string, int) {
	t.Helper()
	var ids []string
	pages := 0
	for {
		res := call[api.ThreadListResult](t, c, api.MethodThreadList, p)
		pages++
		ids = append(ids, threadIDs(res.Threads)...)
		if res.NextCursor == "" {
			return ids, pages
		}
		if pages > 100 {
			t.Fatal("list never ends")
		}
		p.Cursor = res.NextCursor
	}
}

// codexhostVars returns the CODEXHOST_* entries of an environment (NUL- or newline-separated).
func codexhostVars(env string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.FieldsFunc(env, func(r rune) bool { return r == 0 || r == '\n' }) {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(strings.ToUpper(k), "CODEXHOST_") {
			out[k] = v
		}
	}
	return out
}

// stored is a stored Codex thread with one completed turn, loaded by no App Server.
func stored(t *testing.T, codexHome, text string) string {
	t.Helper()
	id, _ := codexfixture.StoredThread(t, codexHome, "", text)
	return id
}
