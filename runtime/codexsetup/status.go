package codexsetup

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Status is what the locator finds with s, and whether Install would run: only when nothing
// is found, nothing names a binary explicitly (it would win over the installed copy), npm is
// on path and no install runs already.
func Status(s appserver.Search, path string) api.CodexStatus {
	st := api.CodexStatus{PinnedVersion: appserver.PinnedVersion, InstallDir: appserver.HomeInstallDir(s.Home),
		InstallCommand: appserver.InstallCommand(s.Home), NPM: FindNPM(path), Installing: Installing(s.Home)}
	bin, err := appserver.Locate(s)
	st.Available, st.Bin, st.Error = err == nil, bin, model.AsError(err)
	switch {
	case s.Configured != "":
		st.NamedBy = "config.toml codex_bin"
	case s.Getenv != nil && s.Getenv("CODEXHOST_CODEX_BIN") != "":
		st.NamedBy = "CODEXHOST_CODEX_BIN"
	}
	explicit := st.NamedBy
	switch {
	case st.Available:
		st.InstallRefusal = model.Errorf(model.CodeFailedPrecondition, "nothing to install", "Codex is already available: %s", bin)
	case explicit != "":
		st.InstallRefusal = model.Errorf(model.CodeFailedPrecondition, "fix or remove "+explicit+", then start again",
			"%s names the codex binary, and it would still win over an installed copy", explicit)
	case st.Installing:
		st.InstallRefusal = model.Errorf(model.CodeFailedPrecondition, "wait for it to finish", "Codex is already being installed into %s", st.InstallDir)
	default:
		if err := npmMissing(path); err != nil {
			st.InstallRefusal = err
		}
	}
	st.CanInstall = st.InstallRefusal == nil
	return st
}
