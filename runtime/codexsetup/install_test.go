package codexsetup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

func fakeTarget(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho codex-cli "+appserver.PinnedVersion+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// An install runs npm with the pinned package and the home's prefix, streams its lines,
// moves the finished copy into <home>/codex/<pinned> (0700, nothing half-done left beside
// it), and gives npm nothing of the caller's environment.
func TestInstallPutsThePinnedCopyIntoTheHome(t *testing.T) {
	t.Parallel()
	target := fakeTarget(t)
	npm := codextest.NewFakeNPM(t, target, false)
	home := t.TempDir()
	var mu sync.Mutex
	var lines []string
	runtimeEnv := map[string]string{
		"NODE_EXTRA_CA_CERTS": "/etc/ssl/extra-ca.pem",              // a path: passed
		"HTTP_PROXY":          "http://proxy.example:3128",          // no credentials: passed
		"HTTPS_PROXY":         "http://user:secret@proxy.example:1", // credentials: dropped
		"OPENAI_API_KEY":      "sk-not-for-npm",
		"NPM_TOKEN":           "npm-not-for-npm",
		"HOME":                "/home/someone",
	}
	bin, err := Install(context.Background(), Options{Home: home, Path: npm.Dir + ":/usr/bin:/bin", Getenv: func(k string) string { return runtimeEnv[k] }, Progress: func(l string) {
		mu.Lock()
		lines = append(lines, l)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	dir := appserver.HomeInstallDir(home)
	if got, ok := appserver.FindPinnedCopy(dir); !ok || got != bin || bin != target {
		t.Fatalf("installed %s; the locator finds %s (%v); want the target %s", bin, got, ok, target)
	}
	if found, err := appserver.Locate(appserver.Search{Home: home}); err != nil || found != target {
		t.Fatalf("Locate after the install: %s %v", found, err)
	}
	if len(lines) < 3 || !strings.Contains(lines[0], "npm http fetch GET 200") || lines[len(lines)-1] != "added 2 packages in 1s" {
		t.Fatalf("progress lines %q", lines)
	}
	args, _ := os.ReadFile(npm.ArgsFile)
	if a := strings.Fields(string(args)); !slices.Contains(a, "@openai/codex@"+appserver.PinnedVersion) || a[0] != "install" || !slices.Contains(a, "--prefix") {
		t.Fatalf("npm arguments %q", args)
	}
	env, _ := os.ReadFile(npm.EnvFile)
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSpace(string(env)), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
		switch {
		case k == "HOME" && !strings.HasPrefix(v, filepath.Join(home, "codex")):
			t.Errorf("npm's HOME is %s, not its own folder in the home", v)
		case k == "PATH", k == "HOME", k == "LANG", k == "NO_COLOR", strings.HasPrefix(k, "npm_config_"),
			k == "NODE_EXTRA_CA_CERTS", k == "HTTP_PROXY",
			k == "PWD", k == "SHLVL", k == "_", k == "OLDPWD": // the last four the shell sets itself
		default:
			t.Errorf("npm got %s=%s from the caller's environment", k, v)
		}
	}
	if got["NODE_EXTRA_CA_CERTS"] != runtimeEnv["NODE_EXTRA_CA_CERTS"] || got["HTTP_PROXY"] != runtimeEnv["HTTP_PROXY"] {
		t.Errorf("npm should see the CA file and the proxy without credentials: %v", got)
	}
	entries, _ := os.ReadDir(filepath.Join(home, "codex"))
	for _, e := range entries {
		if e.Name() != appserver.PinnedVersion {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if st, err := os.Stat(filepath.Join(home, "codex")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("install folder mode %v %v, want 0700", st.Mode().Perm(), err)
	}
}

// A broken copy already in place is replaced by the new one.
func TestInstallReplacesABrokenCopy(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := appserver.HomeInstallDir(home)
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o700); err != nil {
		t.Fatal(err)
	}
	target := fakeTarget(t)
	npm := codextest.NewFakeNPM(t, target, false)
	if bin, err := Install(context.Background(), Options{Home: home, Path: npm.Dir + ":/usr/bin:/bin"}); err != nil || bin != target {
		t.Fatalf("install over a broken copy: %s %v", bin, err)
	}
}

// Without npm the error says how to get it; a failing npm leaves nothing behind and its
// last lines are in the error.
func TestInstallFailuresSayWhy(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	_, err := Install(context.Background(), Options{Home: home, Path: t.TempDir()})
	if e := model.AsError(err); e == nil || e.Code != model.CodeFailedPrecondition || !strings.Contains(e.Message, "npm was not found") ||
		!strings.Contains(e.Hint, "nodejs.org") {
		t.Fatalf("missing npm: %v", err)
	}
	npm := codextest.NewFakeNPM(t, fakeTarget(t), true)
	noNode := t.TempDir()
	if err := os.Symlink(filepath.Join(npm.Dir, "npm"), filepath.Join(noNode, "npm")); err != nil {
		t.Fatal(err)
	}
	_, err = Install(context.Background(), Options{Home: home, Path: noNode})
	if e := model.AsError(err); e == nil || !strings.Contains(e.Message, "node, which runs npm, was not found") || !strings.Contains(e.Hint, "nodejs.org") {
		t.Fatalf("npm without node: %v", err)
	}
	_, err = Install(context.Background(), Options{Home: home, Path: npm.Dir + ":/usr/bin:/bin"})
	if e := model.AsError(err); e == nil || !strings.Contains(e.Message, "404 Not Found") || !strings.Contains(e.Hint, appserver.InstallCommand(home)) {
		t.Fatalf("failing npm: %v", err)
	}
	if _, err := os.Stat(appserver.HomeInstallDir(home)); !os.IsNotExist(err) {
		t.Fatalf("a failed install left %s: %v", appserver.HomeInstallDir(home), err)
	}
}

// Status offers the install only when it would help.
func TestStatusOffersTheInstallOnlyWhenItHelps(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no codex on the process's PATH
	home := t.TempDir()
	npm := codextest.NewFakeNPM(t, fakeTarget(t), false)
	withNPM := npm.Dir + ":/usr/bin:/bin"
	none := func(string) string { return "" }

	st := Status(appserver.Search{Home: home, Getenv: none}, withNPM)
	if st.Available || !st.CanInstall || st.Error == nil || st.NPM != filepath.Join(npm.Dir, "npm") || st.InstallDir != appserver.HomeInstallDir(home) {
		t.Fatalf("missing codex with npm: %+v", st)
	}
	if st := Status(appserver.Search{Home: home, Getenv: none}, t.TempDir()); st.CanInstall || !strings.Contains(st.InstallRefusal.Hint, "nodejs.org") {
		t.Fatalf("missing npm: %+v", st)
	}
	env := func(k string) string {
		if k == "CODEXHOST_CODEX_BIN" {
			return "/nonexistent/codex"
		}
		return ""
	}
	if st := Status(appserver.Search{Home: home, Getenv: env}, withNPM); st.CanInstall || !strings.Contains(st.InstallRefusal.Message, "CODEXHOST_CODEX_BIN") {
		t.Fatalf("an explicit binary wins over an install: %+v", st)
	}
	if _, err := Install(context.Background(), Options{Home: home, Path: withNPM}); err != nil {
		t.Fatal(err)
	}
	if st := Status(appserver.Search{Home: home, Getenv: none}, withNPM); !st.Available || st.CanInstall || st.InstallRefusal == nil {
		t.Fatalf("after the install: %+v", st)
	}
}

func TestCleanLine(t *testing.T) {
	cases := map[string]string{
		"\x1b[32mnpm\x1b[0m http fetch": "npm http fetch",
		"50%\r75%\rdone":                "done",
		"  a\tb\x07  ":                  "ab",
	}
	for in, want := range cases {
		if got := cleanLine(in); got != want {
			t.Errorf("cleanLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cleanLine(strings.Repeat("x", 1000)); utf8.RuneCountInString(got) != maxLine+1 {
		t.Errorf("long line kept %d runes", utf8.RuneCountInString(got))
	}
}

func FuzzCleanLine(f *testing.F) {
	for _, s := range []string{"npm http fetch GET 200 https://registry.npmjs.org/x 5ms", "\x1b[1m\r\x00", "日本語\r", strings.Repeat("é", 400)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := cleanLine(s)
		if strings.ContainsAny(got, "\r\n\x1b\x00") {
			t.Fatalf("control characters kept: %q", got)
		}
		if utf8.RuneCountInString(got) > maxLine+1 {
			t.Fatalf("%d runes", utf8.RuneCountInString(got))
		}
	})
}
