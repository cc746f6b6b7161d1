package appserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/codexhost/codexhost/model"
)

const locateHint = "install it with `npm install -g @openai/codex@" + PinnedVersion + "`, set CODEXHOST_CODEX_BIN to the codex binary, or set codex_bin in config.toml"

// Search is where Locate looks for the codex binary.
type Search struct {
	Configured string              // config.toml codex_bin
	Getenv     func(string) string // the runtime's environment (CODEXHOST_CODEX_BIN, CODEXHOST_CODEX_CACHE)
	Home       string              // the codexhost home, whose codex/<PinnedVersion> copy is looked at
	// Dir is the working directory; a development build looks at the copy `make test`
	// installs into the checkout holding it (see checkoutCopy). Empty skips that copy.
	Dir string
}

// Locate finds the codex binary, in this order:
//
//  1. config.toml codex_bin, then CODEXHOST_CODEX_BIN: named explicitly, so a path that is
//     not an executable file is an error rather than a reason to look further;
//  2. the pinned copy installed into the home (HomeInstallDir), by the terminal app or by
//     the npm command the fix names;
//  3. the pinned copy `make test` installs into the checkout (.cache/codex/<PinnedVersion>)
//     when s.Dir lies in this project's checkout;
//  4. `codex` on PATH.
//
// The pinned copies come before PATH: they are the version codexhost is tested against,
// installed for it, while a codex on PATH may be any release. When it finds the npm wrapper
// it returns the native binary the wrapper would spawn, which starts faster and dies with
// its pipes.
func Locate(s Search) (string, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	candidates := []struct{ from, path string }{
		{"config.toml codex_bin", s.Configured},
		{"CODEXHOST_CODEX_BIN", getenv("CODEXHOST_CODEX_BIN")},
	}
	for _, c := range candidates {
		if c.path == "" {
			continue
		}
		if !isExecutable(c.path) {
			return "", model.Errorf(model.CodeAppServerUnavailable, FixHint(s.Home), "%s points to %q, which is not an executable file", c.from, c.path)
		}
		return preferNative(c.path), nil
	}
	if bin, ok := FindPinnedCopy(HomeInstallDir(s.Home)); ok {
		return bin, nil
	}
	if bin, ok := FindPinnedCopy(checkoutCopy(s.Dir, getenv)); ok {
		return bin, nil
	}
	if p, ok := lookPath(getenv("PATH")); ok {
		return preferNative(p), nil
	}
	return "", model.Errorf(model.CodeAppServerUnavailable, FixHint(s.Home), "%s", notFoundMessage(s, getenv))
}

// lookPath finds codex on path, the runtime's PATH (the process's when it has none). Relative
// entries are skipped: they would run whatever the working directory holds.
func lookPath(path string) (string, bool) {
	if path == "" {
		p, err := exec.LookPath("codex")
		return p, err == nil && filepath.IsAbs(p)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, "codex"); isExecutable(p) {
			return p, true
		}
	}
	return "", false
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
