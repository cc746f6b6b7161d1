package handoff

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/threads"
	"github.com/codexhost/codexhost/store"
)

// The handoff capability of a runtime: the Service opened on the first handoff or task call
// (which is also when tasks cut off by a restart start reading interrupted), its routes, and
// its adapters to the runtime's threads, native harness and environment.

// TaskThreads is the thread capability (runtime/threads) as tasks use it: a task's thread
// starts and is recorded as every other codexhost thread is.
type TaskThreads interface {
	Harness(ctx context.Context, id model.ThreadID) (harness.Harness, error)
	StartChild(ctx context.Context, c threads.Child) (threads.Started, error)
}

// Wiring is what the capability is made with, known before the runtime holds its home.
type Wiring struct {
	Home    string
	Store   func() *store.Store    // the runtime's store, open once it holds its home
	Native  func() *harness.Native // the Codex harness tasks run on
	Threads TaskThreads
	Config  func() *config.Config
	// Environ is the runtime's own environment; NativeEnv the one its App Server started with
	// (a provider profile's key must be in both).
	Environ   []string
	NativeEnv func() []string
	// CodexHome is the default Codex home, hidden from tasks like every configured one.
	CodexHome string
	// CodexBin finds the codex binary the App Server runs ("" when none), whose install may
	// ship the bubblewrap that test commands run in.
	CodexBin  func() string
	Subscribe func(ctx context.Context, fn func(api.Event))
	Publish   func(api.Event)
	Now       func() time.Time
	After     func(time.Duration) <-chan time.Time // the timeout clock; nil is time.After
	Log       io.Writer
}

// Capability is the handoff capability of a runtime.
type Capability struct {
	w    Wiring
	once sync.Once
	svc  *Service
	err  error
	stop context.CancelFunc
}

// NewCapability returns the capability; its Service opens on first use.
func NewCapability(w Wiring) *Capability {
	if w.Log == nil {
		w.Log = io.Discard
	}
	return &Capability{w: w}
}

// Service opens the handoff service once and returns it.
func (c *Capability) Service() (*Service, error) {
	c.once.Do(func() {
		w := c.w
		c.svc, c.err = New(Options{
			Home: w.Home, Store: w.Store(), Runner: taskRunner{c}, Config: w.Config,
			Tests: c.testEnv, Hidden: c.secretDirs, ProviderKey: c.providerKeyReady, Now: w.Now, After: w.After, Log: w.Log,
			Ended: func(task model.ThreadID, status string) {
				w.Publish(api.Event{Type: api.EventTaskStatus, Thread: string(task), Status: status})
			},
		})
		if c.err != nil {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		c.stop = cancel
		svc := c.svc
		w.Subscribe(ctx, func(ev api.Event) {
			if ev.Type == api.EventThreadStatus && ev.TurnStatus != "" {
				svc.OnTurnEnd(model.ThreadID(ev.Thread), ev.TurnStatus)
			}
		})
	})
	return c.svc, c.err
}

// Close stops the service when it was opened.
func (c *Capability) Close() {
	if c.stop != nil {
		c.stop()
		c.svc.Close()
	}
}

// testEnv is how codexhost runs test commands: inside bubblewrap (the copy the Codex install
// ships, else bwrap on PATH) with a minimal environment (PATH, HOME, LANG), the codexhost home
// and every Codex home hidden.
func (c *Capability) testEnv() (TestEnv, error) {
	lookup := envLookup(c.w.Environ)
	bwrap, err := LocateBwrap(c.w.CodexBin(), func(name string) (string, error) { return lookPathIn(lookup("PATH"), name) })
	if err != nil {
		return TestEnv{}, err
	}
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "LANG"} {
		if v := lookup(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return TestEnv{Bwrap: bwrap, Env: env, Hide: c.secretDirs()}, nil
}

// secretDirs are the directories no task reads: the codexhost home (tokens, config.toml,
// catalog.key, the store, histories, every client's handoff files) and every Codex home
// (auth.json).
func (c *Capability) secretDirs() []string {
	return append([]string{c.w.Home, c.w.CodexHome}, c.w.Config().Catalog.CodexHomes...)
}

// providerKeyReady says whether the native App Server has a provider profile's key: it was in
// the runtime's environment, and the profile was configured, when the App Server started.
func (c *Capability) providerKeyReady(name string) error {
	if envLookup(c.w.Environ)(name) == "" {
		return model.Errorf(model.CodeFailedPrecondition, "set "+name+" in the environment of `codexhost serve` (or of the terminal app) and start it again; the App Server reads the key from there",
			"the provider profile's env_key %s is not set in the runtime's environment", name)
	}
	if envLookup(c.w.NativeEnv())(name) == "" {
		return model.Errorf(model.CodeFailedPrecondition, "restart the runtime (`codexhost serve`) so that its App Server starts with "+name,
			"the App Server started before a provider profile named env_key %s", name)
	}
	return nil
}

// envLookup reads a variable of an environment list, the last entry winning as in exec.
func envLookup(environ []string) func(string) string {
	return func(key string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	}
}

// lookPathIn finds an executable in a PATH value (the runtime's environment, not the process's).
func lookPathIn(path, name string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 && filepath.IsAbs(p) {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// logf writes one line to the runtime's log.
func (c *Capability) logf(format string, args ...any) {
	fmt.Fprintf(c.w.Log, format+"\n", args...)
}
