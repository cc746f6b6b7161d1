package appserver

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/codexhost/codexhost/internal/shquote"
)

// ModulePath is this project's Go module: a go.mod naming it marks a checkout of codexhost.
const ModulePath = "github.com/codexhost/codexhost"

// The pinned copies: npm's layout under an install prefix, as scripts/install-codex.sh and
// `npm install --prefix DIR @openai/codex@VERSION` leave it.
const (
	homeInstallFolder = "codex"
	checkoutCacheDir  = ".cache/codex"
	// envCodexCache moves the checkout copy, as it moves scripts/install-codex.sh's cache.
	envCodexCache = "CODEXHOST_CODEX_CACHE"
	goModLimit    = 1 << 16
)

// HomeInstallDir is the npm prefix of the pinned copy in the home:
// <home>/codex/<PinnedVersion>. Empty when home is.
func HomeInstallDir(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, homeInstallFolder, PinnedVersion)
}

// InstallCommand is the npm command that installs the pinned copy into the home by hand.
func InstallCommand(home string) string {
	if home == "" {
		return "npm install -g @openai/codex@" + PinnedVersion
	}
	return "npm install --prefix " + shellQuote(HomeInstallDir(home)) + " @openai/codex@" + PinnedVersion
}

// FixHint is the fix for a missing codex binary, the same in the terminal app, doctor and
// every error: install the pinned copy into the home (with `codexhost codex install` from a
// shell without the app, such as a headless serve's; from the app; or by hand with npm), or
// name a binary.
func FixHint(home string) string {
	return "install Codex " + PinnedVersion + ": run `codexhost codex install` or press i in the terminal app (codexhost) to install it with npm, or run `" +
		InstallCommand(home) + "` by hand (Node.js and npm: https://nodejs.org/en/download); or set CODEXHOST_CODEX_BIN, " +
		"or codex_bin in config.toml, to a codex " + PinnedVersion + " binary"
}

// notFoundMessage names every place Locate looked.
func notFoundMessage(s Search, getenv func(string) string) string {
	looked := []string{"config.toml codex_bin and CODEXHOST_CODEX_BIN are unset"}
	if d := HomeInstallDir(s.Home); d != "" {
		looked = append(looked, "no copy in "+d)
	}
	if d := checkoutCopy(s.Dir, getenv); d != "" {
		looked = append(looked, "no copy in "+d)
	}
	looked = append(looked, "no codex on PATH")
	return "the codex binary was not found: " + strings.Join(looked, ", ")
}

// FindPinnedCopy finds the native binary of the npm install under prefix. It is taken only as
// what its symlinks resolve to, and only when that is a regular executable file owned by
// this user or root that no one else may write: a copy whose binary another user could
// replace would run as this user.
func FindPinnedCopy(prefix string) (string, bool) {
	if prefix == "" {
		return "", false
	}
	pkg := filepath.Join(prefix, "node_modules", "@openai", "codex-"+npmPlatform())
	matches, _ := filepath.Glob(filepath.Join(pkg, "vendor", "*", "bin", "codex"))
	for _, m := range matches {
		real, err := filepath.EvalSymlinks(m)
		if err != nil {
			continue
		}
		if trustedExecutable(real) {
			return real, true
		}
	}
	return "", false
}

func trustedExecutable(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && (int(sys.Uid) == os.Geteuid() || sys.Uid == 0)
}

// checkoutCopy is the npm prefix scripts/install-codex.sh uses in the checkout that holds
// dir: <checkout>/.cache/codex/<PinnedVersion> (or $CODEXHOST_CODEX_CACHE/<PinnedVersion>),
// where the checkout is the nearest directory at or above dir whose go.mod names this
// module. The working directory is the sound clue: `go run .` and `make test` run in the
// checkout, while the binary they build lives in a temporary folder and knows nothing of its
// sources. Empty when dir is empty or not in a checkout.
func checkoutCopy(dir string, getenv func(string) string) string {
	if dir == "" {
		return ""
	}
	root, ok := moduleRoot(dir)
	if !ok {
		return ""
	}
	if cache := getenv(envCodexCache); cache != "" && filepath.IsAbs(cache) {
		return filepath.Join(cache, PinnedVersion)
	}
	return filepath.Join(root, filepath.FromSlash(checkoutCacheDir), PinnedVersion)
}

// moduleRoot walks up from dir (symlinks resolved) to the nearest go.mod and reports its
// directory when that go.mod is this project's.
func moduleRoot(dir string) (string, bool) {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			b, rerr := io.ReadAll(io.LimitReader(f, goModLimit))
			_ = f.Close()
			return dir, rerr == nil && ParseModulePath(b) == ModulePath
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// ParseModulePath returns the module path of a go.mod's module directive (bare, quoted, or
// with a trailing comment); empty when there is none.
func ParseModulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	sc.Buffer(make([]byte, 0, 4096), goModLimit)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, "\"") || strings.HasPrefix(rest, "`") {
			if p, err := strconv.Unquote(rest); err == nil {
				return p
			}
			return ""
		}
		if strings.ContainsAny(rest, " \t") {
			return ""
		}
		return rest
	}
	return ""
}

func shellQuote(s string) string { return shquote.Quote(s) }

// DevelopmentVersion is the version of a build from a checkout without release flags.
const DevelopmentVersion = "dev"

// SearchDir is Search.Dir for a build of version: the working directory for a development
// build, empty for a release, which never runs a binary from the directory it was started in.
func SearchDir(version string) string {
	if version != DevelopmentVersion {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}
