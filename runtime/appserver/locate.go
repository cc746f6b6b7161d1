package appserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// PinnedVersion is the @openai/codex release codexhost is built and tested against.
const PinnedVersion = "0.169.0"

const locateHint = "install it with `npm install -g @openai/codex@" + PinnedVersion + "`, set CODEXHOST_CODEX_BIN to the codex binary, or set codex_bin in config.toml"

// Locate finds the codex binary: the configured path, then CODEXHOST_CODEX_BIN, then PATH.
// When it finds the npm wrapper it returns the native binary the wrapper would spawn, which
// starts faster and dies with its pipes.
func Locate(configured string, getenv func(string) string) (string, error) {
	candidates := []struct{ from, path string }{
		{"config.toml codex_bin", configured},
		{"CODEXHOST_CODEX_BIN", getenv("CODEXHOST_CODEX_BIN")},
	}
	for _, c := range candidates {
		if c.path == "" {
			continue
		}
		if !isExecutable(c.path) {
			return "", model.Errorf(model.CodeAppServerUnavailable, locateHint, "%s points to %q, which is not an executable file", c.from, c.path)
		}
		return preferNative(c.path), nil
	}
	if p, err := exec.LookPath("codex"); err == nil {
		return preferNative(p), nil
	}
	return "", model.Errorf(model.CodeAppServerUnavailable, locateHint, "the codex binary was not found (config.toml codex_bin, CODEXHOST_CODEX_BIN and PATH were searched)")
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// preferNative maps node_modules/.bin/codex or …/@openai/codex/bin/codex.js to
// …/@openai/codex-<platform>/vendor/<triple>/bin/codex when that exists.
func preferNative(p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	// The wrapper lives in <node_modules>/@openai/codex/bin/.
	if !strings.HasSuffix(filepath.ToSlash(filepath.Dir(real)), "@openai/codex/bin") {
		return p
	}
	nodeModules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(real))))
	for _, pkg := range []string{filepath.Join(nodeModules, "@openai", "codex-"+npmPlatform()), filepath.Join(filepath.Dir(filepath.Dir(real)), "node_modules", "@openai", "codex-"+npmPlatform())} {
		matches, _ := filepath.Glob(filepath.Join(pkg, "vendor", "*", "bin", "codex"))
		for _, m := range matches {
			if isExecutable(m) {
				return m
			}
		}
	}
	return p
}

func npmPlatform() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return runtime.GOOS + "-" + arch
}
