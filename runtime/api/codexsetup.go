package api

import "github.com/codexhost/codexhost/model"

// Codex setup: whether the runtime finds a codex binary for its App Servers, and installing
// the pinned @openai/codex into the home when it does not. Operator methods: they name paths
// of the runtime's machine and run npm there.
const (
	MethodCodexStatus  = "codex.status"
	MethodCodexInstall = "codex.install"
)

// EventCodexInstall is a line of npm's output during a codex.install call (Install).
const EventCodexInstall = "codex.install"

// CodexStatus is what the locator finds, and what installing would do.
type CodexStatus struct {
	// Available: a codex binary was found (Bin); otherwise Error says why, with the fix.
	Available     bool         `json:"available"`
	Bin           string       `json:"bin,omitempty"`
	Error         *model.Error `json:"error,omitempty"`
	PinnedVersion string       `json:"pinnedVersion"`
	// NamedBy is the setting that names the binary ("config.toml codex_bin" or
	// "CODEXHOST_CODEX_BIN"), when one does: it wins over every copy found elsewhere.
	NamedBy string `json:"namedBy,omitempty"`
	// InstallDir is where codex.install puts the pinned copy; InstallCommand does the same
	// by hand.
	InstallDir     string `json:"installDir"`
	InstallCommand string `json:"installCommand"`
	// NPM is the npm codex.install would run, empty when PATH has none.
	NPM string `json:"npm,omitempty"`
	// CanInstall: codex.install would run; otherwise InstallRefusal says why not.
	CanInstall     bool         `json:"canInstall"`
	InstallRefusal *model.Error `json:"installRefusal,omitempty"`
	// Installing: an install into InstallDir runs now.
	Installing bool `json:"installing,omitempty"`
}

// CodexInstallParams asks for the install; Progress asks for an EventCodexInstall per line
// of npm's output.
type CodexInstallParams struct {
	Progress bool `json:"progress,omitempty"`
}

// CodexInstallResult is the installed copy and the App Server started on it.
type CodexInstallResult struct {
	Bin        string `json:"bin"`
	InstallDir string `json:"installDir"`
	Version    string `json:"version"`
	DurationMs int64  `json:"durationMs"`
	// Started: the native App Server runs on the new copy; otherwise StartError says why.
	Started    bool         `json:"started"`
	StartError *model.Error `json:"startError,omitempty"`
}

// CodexInstallProgress is one line of npm's output.
type CodexInstallProgress struct {
	Line string `json:"line"`
}
