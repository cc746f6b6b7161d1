package runtime

import (
	"context"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// appServerStart is how every App Server of this runtime starts (the native harness's, an
// extra Codex home's for the catalog or for supervised threads): the codex binary of
// config.toml or the environment, env as its whole environment, the home as its directory,
// its stderr to logName.
func (h *Host) appServerStart(codexBin string, env []string, logName string) func(ctx context.Context) (*appserver.Client, error) {
	lookup := envLookup(h.opts.Environ)
	return func(ctx context.Context) (*appserver.Client, error) {
		bin, err := appserver.Locate(h.codexSearch(codexBin, lookup))
		if err != nil {
			return nil, err
		}
		return appserver.Start(ctx, appserver.Config{Bin: bin, Env: env, Dir: h.opts.Home, StderrLog: logName,
			ClientName: "codexhost", ClientVersion: h.opts.Version})
	}
}
