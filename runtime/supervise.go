package runtime

import (
	"path/filepath"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/supervise"
)

// Wiring of supervised threads (`codexhost continue`, runtime/supervise).

func (h *Host) newSupervise() *supervise.Service {
	return supervise.New(supervise.Options{Record: h.recordEvent, Usage: h.onUsage, UsageOf: func(id model.ThreadID) *model.Usage { return h.threads.UsageOf(id) }, Publish: h.publish, Decorate: func(info *model.ThreadInfo) { h.threads.Decorate(info) }, Now: h.opts.Now, Log: h.opts.Log})
}

// startSupervision runs the supervised threads on the catalog, the native harness and, for
// branches of extra Codex homes, an App Server of their home started on first use.
func (h *Host) startSupervision(cfg *config.Config, appEnv []string, logDir string) error {
	codexBin := cfg.CodexBin
	return h.supervise.Start(supervise.Deps{Store: h.store, Catalog: h.catalog, Native: h.native, CodexHomes: cfg.Catalog.CodexHomes,
		Dir: filepath.Join(h.opts.Home, supervise.DirName),
		StartNative: func(hostID, home string, onEvent func(harness.Event)) *harness.Native {
			logName := filepath.Join(logDir, "app-server-supervise-"+strings.ReplaceAll(hostID, ":", "-")+".log")
			return harness.NewNative(harness.NativeOptions{Start: h.appServerStart(codexBin, withVar(appEnv, "CODEX_HOME", home), logName),
				OnEvent: onEvent, Now: h.opts.Now})
		}})
}
