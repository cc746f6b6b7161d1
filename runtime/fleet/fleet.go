// Package fleet is the fleet catalog as the runtime serves it: the catalog built from
// config.toml (the default Codex home, extra homes, paired nodes), its cursor key, and its
// methods (catalog.hosts, catalog.sessions, catalog.transcript, catalog.archive) with every
// session linked to the codexhost thread driving it (runtime/supervise).
package fleet

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/internal/secretfile"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
)

// KeyFile holds the key that signs catalog cursors, so that a cursor printed by one command
// still works in the next one, which may run in another (embedded) runtime.
const KeyFile = "catalog.key"

// StartFunc makes how an App Server of one Codex home starts: the codex binary, its whole
// environment and the log its stderr goes to.
type StartFunc func(codexBin string, env []string, logName string) func(ctx context.Context) (*appserver.Client, error)

// Options are what the catalog is built from, known before the runtime holds its home.
type Options struct {
	Home    string
	Environ []string // the runtime's environment: where the default Codex home is
	OneShot bool     // a runtime of one command keeps what it read (catalog.Options.OneShot)
	Config  func() *config.Config
	Start   StartFunc
	// Links name the codexhost thread of each session and guard archive (supervise.Service).
	Links Links
	// Archived is told of a thread archive archived, after Codex accepted it.
	Archived func(ctx context.Context, thread model.ThreadID) *model.MarkerCleanup
	// Approvals are the approvals this runtime holds: which threads wait on one (the fleet's
	// mark) and those of a thread (shown in its transcript).
	Approvals Approvals
	Now       func() time.Time
	Log       io.Writer
}

// Approvals is what the fleet reads of the runtime's approvals (approvals.Registry).
type Approvals interface {
	Waiting(thread string) bool
	OfThread(thread string) []model.Approval
}

// Service holds the runtime's catalog once Start built it.
type Service struct {
	opts Options
	mu   sync.Mutex
	cat  *catalog.Catalog
}

// New returns a Service whose methods fail until Start.
func New(opts Options) *Service { return &Service{opts: opts} }

// Start builds the fleet catalog: the default Codex home through the native harness's App
// Server, and one host per extra Codex home of config.toml, each with an App Server of its
// own started on first use with the same environment as the native one but its own
// CODEX_HOME; paired nodes last.
func (s *Service) Start(native *harness.Native, appEnv []string, logDir string) error {
	cfg := s.opts.Config()
	specs := []catalog.HostSpec{{
		ID:      catalog.LocalHostID,
		Default: true,
		// The harness replaces a dead App Server, so the client is fetched on every use.
		Source: catalog.SourceFunc(func(ctx context.Context) (catalog.Conn, error) {
			c, err := native.Client(ctx)
			if err != nil {
				return nil, err
			}
			return c, nil
		}),
		Running: func(id string) bool { return slices.Contains(native.Active(), model.ThreadID(id)) },
		Waiting: s.opts.Approvals.Waiting,
	}}
	defaultHome := sameFile(harness.DefaultCodexHome(harness.Lookup(s.opts.Environ)))
	seen := map[string]bool{}
	for _, home := range cfg.Catalog.CodexHomes {
		home = filepath.Clean(home)
		// The default home is already gateway:local; a second App Server on it would only
		// compete for its threads.
		if sameFile(home) == defaultHome || seen[sameFile(home)] {
			continue
		}
		seen[sameFile(home)] = true
		id := catalog.ExtraHostID(home)
		logName := filepath.Join(logDir, "app-server-"+strings.ReplaceAll(id, ":", "-")+".log")
		specs = append(specs, catalog.HostSpec{ID: id, Source: catalog.NewProcessSource(s.opts.Start(cfg.CodexBin, harness.WithVar(appEnv, "CODEX_HOME", home), logName))})
	}
	// Paired nodes come last; their command policy is read live from config.toml.
	for _, name := range cfg.NodeNames() {
		n := cfg.Nodes[name]
		specs = append(specs, catalog.HostSpec{ID: catalog.NodeHostID(name), Source: catalog.NewNodeSource(name, n.Address, n.Token,
			func(cmd string) bool { return s.opts.Config().Gateway.Nodes.Commands.Allows(cmd) }, s.opts.Now)})
	}
	key, err := loadKey(s.opts.Home)
	if err != nil {
		return err
	}
	cat, err := catalog.New(specs, catalog.Options{Key: key, Now: s.opts.Now, Log: s.opts.Log, KeepWarm: catalog.DefaultKeepWarm,
		IndexDir: filepath.Join(s.opts.Home, "catalog-index"), OneShot: s.opts.OneShot})
	if err != nil {
		return err
	}
	s.Use(cat)
	return nil
}

// Use makes cat the catalog, closing the one it replaces (tests give App Servers that behave
// in a chosen way).
func (s *Service) Use(cat *catalog.Catalog) {
	s.mu.Lock()
	old := s.cat
	s.cat = cat
	s.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
}

// Catalog is the running catalog, or why there is none.
func (s *Service) Catalog() (*catalog.Catalog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cat == nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "restart the runtime", "the catalog is not running")
	}
	return s.cat, nil
}

// running is the catalog or nil, for the calls that do nothing without one.
func (s *Service) running() *catalog.Catalog {
	cat, _ := s.Catalog()
	return cat
}

// Warm starts reading the catalog's hosts ahead in the background, so that the first search
// of a lasting runtime (serve) is served from memory.
func (s *Service) Warm() {
	if cat := s.running(); cat != nil {
		cat.Warm()
	}
}

// RetryUnavailable retries at once the hosts that failed for want of codex.
func (s *Service) RetryUnavailable() {
	if cat := s.running(); cat != nil {
		cat.RetryUnavailable()
	}
}

// Observe passes thread status changes of the native harness to the catalog, so a warm list
// shows them without reading the App Server again.
func (s *Service) Observe(thread model.ThreadID, status string) {
	if cat := s.running(); cat != nil && status != "" {
		cat.ObserveStatus(catalog.LocalHostID, string(thread), status)
	}
}

// Close closes the catalog.
func (s *Service) Close() error {
	if cat := s.running(); cat != nil {
		return cat.Close()
	}
	return nil
}

// sameFile resolves symbolic links where it can, so two spellings of one home compare equal.
func sameFile(p string) string {
	if p == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// loadKey reads the cursor key of the home, creating it (0600) on first use.
func loadKey(home string) ([]byte, error) {
	path := filepath.Join(home, KeyFile)
	key, err := secretfile.ReadOrCreate(path, config.NewToken, func(path string) ([]byte, error) {
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if err != nil {
			return nil, model.Errorf(model.CodeFailedPrecondition, "check the permissions of the home directory", "read the catalog key: %v", err)
		}
		key, derr := hex.DecodeString(strings.TrimSpace(string(b)))
		if derr != nil || len(key) < 32 {
			return nil, model.Errorf(model.CodeFailedPrecondition, "delete "+path+"; a new key is made (earlier catalog cursors stop working)", "the catalog key file is damaged")
		}
		return key, nil
	})
	var ce *secretfile.CreateError
	switch {
	case errors.As(err, &ce) && ce.Created:
		return nil, model.Errorf(model.CodeFailedPrecondition, "check the free space and permissions of the home directory", "write the catalog key failed")
	case errors.As(err, &ce):
		return nil, model.Errorf(model.CodeFailedPrecondition, "check the permissions of the home directory", "create the catalog key: %v", ce.Err)
	case errors.Is(err, os.ErrNotExist):
		return nil, model.Errorf(model.CodeInternal, "retry", "the catalog key could not be read")
	}
	return key, err
}
