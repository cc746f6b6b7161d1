// Package codexsetup installs the pinned @openai/codex into a codexhost home with npm, so that
// a machine without Codex gets the App Server from the terminal app, and reports what the
// locator finds.
package codexsetup

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// NPMHint is how to get npm, named wherever npm is missing.
const NPMHint = "install Node.js with npm (https://nodejs.org/en/download, or your system's packages, e.g. `apt install npm` or `brew install node`), then install again; " +
	"or set CODEXHOST_CODEX_BIN to a codex " + appserver.PinnedVersion + " binary"

// maxLine bounds one progress line; npm prints long URLs.
const maxLine = 300

// Options say where to install and what npm sees.
type Options struct {
	Home string // the codexhost home; the copy goes to appserver.HomeInstallDir(Home)
	// Path is the PATH npm is looked up in and runs with (node must be on it too).
	Path string
	// Getenv reads the runtime's environment for the few variables npm may see (npmEnv);
	// nil passes none.
	Getenv func(string) string
	// Progress gets each line of npm's output as it comes; nil drops them.
	Progress func(line string)
}

// installing holds the install directories an install runs into, one at a time each.
var installing sync.Map

// Installing reports whether an install into home runs in this process.
func Installing(home string) bool {
	_, busy := installing.Load(appserver.HomeInstallDir(home))
	return busy
}

// FindNPM is npm on path, empty when there is none.
func FindNPM(path string) string { return findOnPath(path, "npm") }

// npmMissing is the error of a PATH without npm, or without the node that runs it.
func npmMissing(path string) *model.Error {
	switch {
	case FindNPM(path) == "":
		return model.Errorf(model.CodeFailedPrecondition, NPMHint, "npm was not found on PATH (%s)", path)
	case findOnPath(path, "node") == "":
		return model.Errorf(model.CodeFailedPrecondition, NPMHint, "node, which runs npm, was not found on PATH (%s)", path)
	}
	return nil
}

func findOnPath(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would run whatever the working directory holds
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Install runs `npm install --prefix DIR @openai/codex@PinnedVersion` into a fresh folder
// beside the home's install directory and moves it into place only once it holds the native
// binary, so the locator never finds half an install; a copy already there (a broken one) is
// replaced. npm runs with a minimal environment (npmEnv): no ~/.npmrc with registry tokens is
// read and no credential passed, so networks that need one use the npm command of
// appserver.InstallCommand by hand. It returns the native binary.
func Install(ctx context.Context, o Options) (string, error) {
	dir := appserver.HomeInstallDir(o.Home)
	if dir == "" {
		return "", model.Errorf(model.CodeInvalidArgument, "name the codexhost home", "no home to install Codex into")
	}
	if err := npmMissing(o.Path); err != nil {
		return "", err
	}
	npm := FindNPM(o.Path)
	if _, busy := installing.LoadOrStore(dir, true); busy {
		return "", model.Errorf(model.CodeFailedPrecondition, "wait for it to finish", "Codex is already being installed into %s", dir)
	}
	defer installing.Delete(dir)

	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", model.Errorf(model.CodeInternal, "check the home's permissions", "create %s: %v", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, ".install-"+appserver.PinnedVersion+"-")
	if err != nil {
		return "", model.Errorf(model.CodeInternal, "check the home's permissions", "create an install folder: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := runNPM(ctx, npm, tmp, parent, o); err != nil {
		return "", err
	}
	if _, ok := appserver.FindPinnedCopy(tmp); !ok {
		return "", model.Errorf(model.CodeFailedPrecondition,
			"npm may skip the platform package (optional dependencies off in an npmrc); run `"+appserver.InstallCommand(o.Home)+"` by hand to see why",
			"npm finished, but installed no codex binary for this platform")
	}
	if err := replace(dir, tmp); err != nil {
		return "", err
	}
	// npm's cache only speeds up a retry of a failed install: 160 MB not to keep.
	_ = os.RemoveAll(filepath.Join(parent, ".npm-cache"))
	_ = os.RemoveAll(filepath.Join(parent, ".npm-home"))
	bin, ok := appserver.FindPinnedCopy(dir)
	if !ok {
		return "", model.Errorf(model.CodeInternal, "install again", "the installed codex binary is missing from %s", dir)
	}
	return bin, nil
}

// trustVars name certificate files and folders: where a network inspects TLS, npm needs the
// CA they add, and they hold paths, not secrets.
var trustVars = []string{"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"}

// proxyVars are passed only when they carry no user name or password.
var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}

// npmEnv is npm's whole environment: PATH, an empty HOME of its own (so no ~/.npmrc is read),
// a cache in the home, the trust variables, and proxies without credentials.
func npmEnv(path, parent string, getenv func(string) string) []string {
	env := []string{
		"PATH=" + path,
		"HOME=" + filepath.Join(parent, ".npm-home"),
		"LANG=C.UTF-8",
		"NO_COLOR=1",
		"npm_config_cache=" + filepath.Join(parent, ".npm-cache"),
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
		"npm_config_color=false",
		"npm_config_progress=false",
	}
	if getenv == nil {
		return env
	}
	for _, k := range trustVars {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	for _, k := range proxyVars {
		if v := getenv(k); v != "" && !hasUserinfo(v) {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// hasUserinfo reports a proxy URL with a user name or password in it (or one that does not
// parse, which is kept out as well).
func hasUserinfo(v string) bool {
	if !strings.Contains(v, "://") {
		return strings.Contains(v, "@")
	}
	u, err := url.Parse(v)
	return err != nil || u.User != nil
}

// runNPM runs npm into prefix, its output line by line to o.Progress; ctx ending kills npm
// and what it started.
func runNPM(ctx context.Context, npm, prefix, parent string, o Options) error {
	if err := os.MkdirAll(filepath.Join(parent, ".npm-home"), 0o700); err != nil {
		return model.Errorf(model.CodeInternal, "check the home's permissions", "prepare npm: %v", err)
	}
	// --loglevel=http prints a line per request: the progress of a download that takes a while.
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=http",
		"--prefix", prefix, "@openai/codex@"+appserver.PinnedVersion)
	cmd.Env = npmEnv(o.Path, parent, o.Getenv)
	cmd.Dir = prefix
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var tail lastLines
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			line := cleanLine(sc.Text())
			if line == "" {
				continue
			}
			tail.add(line)
			if o.Progress != nil {
				o.Progress(line)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	_ = pw.Close()
	<-done
	if ctx.Err() != nil {
		return model.Errorf(model.CodeFailedPrecondition, "install again", "the Codex install was stopped")
	}
	if err != nil {
		return model.Errorf(model.CodeFailedPrecondition,
			"check the network and npm's message; or run `"+appserver.InstallCommand(o.Home)+"` by hand",
			"npm install @openai/codex@%s failed (%v): %s", appserver.PinnedVersion, err, tail.String())
	}
	return nil
}

// replace puts the finished install tmp at dir, moving a copy already there aside first.
func replace(dir, tmp string) error {
	if _, err := os.Lstat(dir); err == nil {
		var b [6]byte
		_, _ = rand.Read(b[:])
		old := tmp + ".old-" + hex.EncodeToString(b[:])
		if err := os.Rename(dir, old); err != nil {
			return model.Errorf(model.CodeInternal, "remove "+dir+" and install again", "move the old copy aside: %v", err)
		}
		defer os.RemoveAll(old)
	} else if !errors.Is(err, os.ErrNotExist) {
		return model.Errorf(model.CodeInternal, "check the home's permissions", "inspect %s: %v", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return model.Errorf(model.CodeInternal, "check the home's permissions", "move the install into place: %v", err)
	}
	return nil
}

// cleanLine is a line of npm's output fit to show: no escape sequences, no carriage-return
// redraws, bounded.
func cleanLine(s string) string {
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(ansi.Strip(s))
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > maxLine {
		s = string(r[:maxLine]) + "…"
	}
	return s
}

// lastLines keeps npm's last few lines for the error of a failed install.
type lastLines struct{ lines []string }

func (l *lastLines) add(s string) {
	l.lines = append(l.lines, s)
	if len(l.lines) > 5 {
		l.lines = l.lines[1:]
	}
}

func (l *lastLines) String() string {
	if len(l.lines) == 0 {
		return "npm printed nothing"
	}
	return strings.Join(l.lines, " | ")
}
