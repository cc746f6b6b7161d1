package runtime

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codexhost/codexhost/internal/secretfile"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
)

// catalogKeyFile holds the key that signs catalog cursors, so that a cursor printed by one
// command still works in the next one, which may run in another (embedded) runtime.
const catalogKeyFile = "catalog.key"

// startCatalog builds the fleet catalog: the default Codex home through the native harness's
// App Server, and one host per extra Codex home of config.toml, each with an App Server of
// its own started on first use with the same environment as the native one but its own
// CODEX_HOME.
func (h *Host) startCatalog(cfg *config.Config, appEnv []string, logDir string) error {
	specs := []catalog.HostSpec{{
		ID:      catalog.LocalHostID,
		Default: true,
		// The harness replaces a dead App Server, so the client is fetched on every use.
		Source: catalog.SourceFunc(func(ctx context.Context) (catalog.Conn, error) {
			c, err := h.native.Client(ctx)
			if err != nil {
				return nil, err
			}
			return c, nil
		}),
		Running: func(id string) bool { return slices.Contains(h.native.Active(), model.ThreadID(id)) },
		Waiting: h.approvals.Waiting,
	}}
	defaultHome := sameFile(defaultCodexHome(envLookup(h.opts.Environ)))
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
		specs = append(specs, catalog.HostSpec{ID: id, Source: catalog.NewProcessSource(h.appServerStart(cfg.CodexBin, withVar(appEnv, "CODEX_HOME", home), logName))})
	}
	// Paired nodes come last; their command policy is read live from config.toml.
	for _, name := range cfg.NodeNames() {
		n := cfg.Nodes[name]
		specs = append(specs, catalog.HostSpec{ID: catalog.NodeHostID(name), Source: catalog.NewNodeSource(name, n.Address, n.Token,
			func(cmd string) bool { return h.config().Gateway.Nodes.Commands.Allows(cmd) }, h.opts.Now)})
	}
	key, err := loadCatalogKey(h.opts.Home)
	if err != nil {
		return err
	}
	cat, err := catalog.New(specs, catalog.Options{Key: key, Now: h.opts.Now, Log: h.opts.Log, KeepWarm: catalog.DefaultKeepWarm,
		IndexDir: filepath.Join(h.opts.Home, "catalog-index"), OneShot: h.opts.OneShot})
	if err != nil {
		return err
	}
	h.catalog = cat
	return nil
}

// WarmCatalog starts reading the catalog's hosts ahead in the background, so that the first
// search of a lasting runtime (serve) is served from memory. Runtimes of one command skip it.
func (h *Host) WarmCatalog() {
	if h.catalog != nil {
		h.catalog.Warm()
	}
}

// defaultCodexHome is the Codex home the native App Server uses: CODEX_HOME, else ~/.codex.
func defaultCodexHome(lookup func(string) string) string {
	if v := lookup("CODEX_HOME"); v != "" {
		return filepath.Clean(v)
	}
	if home := lookup("HOME"); home != "" {
		return filepath.Join(home, ".codex")
	}
	return ""
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

// withVar returns env with name set to value, replacing an earlier value.
func withVar(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == name {
			continue
		}
		out = append(out, kv)
	}
	return append(out, name+"="+value)
}

// loadCatalogKey reads the cursor key of the home, creating it (0600) on first use.
func loadCatalogKey(home string) ([]byte, error) {
	path := filepath.Join(home, catalogKeyFile)
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

// catalogObserve passes thread status changes of the native harness to the catalog, so a
// warm list shows them without reading the App Server again.
func (h *Host) catalogObserve(thread model.ThreadID, status string) {
	if h.catalog != nil && status != "" {
		h.catalog.ObserveStatus(catalog.LocalHostID, string(thread), status)
	}
}
