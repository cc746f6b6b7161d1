package codexsetup

import (
	"context"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// Launcher starts a runtime's App Servers (the native harness's, an extra Codex home's for
// the catalog or for supervised threads) on the codex its locator finds.
type Launcher struct {
	Home, Version string
	Lookup        func(string) string // the runtime's environment
}

// Search is where the runtime's App Servers look for codex, configured the codex_bin of
// config.toml.
func (l Launcher) Search(configured string) appserver.Search {
	return Search(l.Home, l.Version, configured, l.Lookup)
}

// Start is how every App Server of the runtime starts: the codex binary of config.toml
// (codexBin) or the environment, env as its whole environment, the home as its directory,
// its stderr to logName.
func (l Launcher) Start(codexBin string, env []string, logName string) func(ctx context.Context) (*appserver.Client, error) {
	return func(ctx context.Context) (*appserver.Client, error) {
		bin, err := appserver.Locate(l.Search(codexBin))
		if err != nil {
			return nil, err
		}
		return appserver.Start(ctx, appserver.Config{Bin: bin, Env: env, Dir: l.Home, StderrLog: logName,
			ClientName: "codexhost", ClientVersion: l.Version})
	}
}
