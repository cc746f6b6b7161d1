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
	return supervise.New(supervise.Options{Record: h.recordEvent, Publish: h.publish, Decorate: h.decorate, Now: h.opts.Now, Log: h.opts.Log})
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

// supervisedThread returns the harness view of a supervised thread; ok is false for others.
func (h *Host) supervisedThread(id model.ThreadID) (harness.Harness, bool, error) {
	return h.supervise.Thread(id)
}

// refuseSendModel answers a send that asks for another model: a turn runs with its thread's
// model, and a supervised thread is locked to the pair Codex chose at its first turn.
func (h *Host) refuseSendModel(id model.ThreadID) error {
	if err := h.supervise.ModelLocked(id); err != nil {
		return err
	}
	return model.Errorf(model.CodeInvalidArgument, "send without a model; start another thread with `delegate start --model`",
		"thread send keeps the thread's model")
}
