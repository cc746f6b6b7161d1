package appserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// installCopy lays an npm install of the pinned package out under prefix, as npm does, with
// an executable native binary; it returns the binary.
func installCopy(t *testing.T, prefix string) string {
	t.Helper()
	bin := filepath.Join(prefix, "node_modules", "@openai", "codex-"+npmPlatform(), "vendor", "triple", "bin", "codex")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// checkout is a directory whose go.mod names this module, with a subdirectory to run in.
func checkout(t *testing.T, module string) (root, sub string) {
	t.Helper()
	root = t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("// a checkout\nmodule "+module+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub = filepath.Join(root, "ui", "testdata")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, sub
}

func envOf(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The documented order: the environment's binary wins over the home's copy, which wins over
// the checkout's (.cache/codex/<pinned>), which wins over PATH.
func TestLocateFindsThePinnedCopiesInOrder(t *testing.T) {
	pathDir := t.TempDir()
	onPath := filepath.Join(pathDir, "codex")
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", pathDir)
	home := t.TempDir()
	root, sub := checkout(t, ModulePath)
	fromEnv := installCopy(t, t.TempDir())
	homeBin := installCopy(t, HomeInstallDir(home))
	cacheBin := installCopy(t, filepath.Join(root, ".cache", "codex", PinnedVersion))

	s := Search{Getenv: envOf(map[string]string{"CODEXHOST_CODEX_BIN": fromEnv}), Home: home, Dir: sub}
	if got, err := Locate(s); err != nil || got != fromEnv {
		t.Fatalf("CODEXHOST_CODEX_BIN should win: %s %v", got, err)
	}
	s.Getenv = envOf(nil)
	if got, err := Locate(s); err != nil || got != realPath(t, homeBin) {
		t.Fatalf("the home's copy should come next: %s %v", got, err)
	}
	if err := os.RemoveAll(filepath.Join(home, "codex")); err != nil {
		t.Fatal(err)
	}
	if got, err := Locate(s); err != nil || got != realPath(t, cacheBin) {
		t.Fatalf("the checkout's .cache copy should come next: %s %v", got, err)
	}
	// CODEXHOST_CODEX_CACHE moves the checkout copy, as it moves the install script's cache.
	moved := t.TempDir()
	movedBin := installCopy(t, filepath.Join(moved, PinnedVersion))
	s.Getenv = envOf(map[string]string{envCodexCache: moved})
	if got, err := Locate(s); err != nil || got != realPath(t, movedBin) {
		t.Fatalf("CODEXHOST_CODEX_CACHE should move the checkout copy: %s %v", got, err)
	}
	s.Getenv = envOf(nil)
	s.Dir = ""
	if got, err := Locate(s); err != nil || got != onPath {
		t.Fatalf("without a checkout (a release build) PATH comes last: %s %v", got, err)
	}
}

// A go.mod of another module is no checkout of codexhost: its .cache is never run.
func TestLocateIgnoresTheCacheOfAnotherModule(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	root, sub := checkout(t, "example.com/impostor")
	installCopy(t, filepath.Join(root, ".cache", "codex", PinnedVersion))
	home := t.TempDir()
	_, err := Locate(Search{Home: home, Dir: sub})
	if !model.IsCode(err, model.CodeAppServerUnavailable) {
		t.Fatalf("want APP_SERVER_UNAVAILABLE, got %v", err)
	}
	e := model.AsError(err)
	if !strings.Contains(e.Message, HomeInstallDir(home)) || strings.Contains(e.Message, root) {
		t.Fatalf("the message should name the home's install dir and not the impostor's cache: %s", e.Message)
	}
	if !strings.Contains(e.Hint, InstallCommand(home)) || !strings.Contains(e.Hint, "press i") || !strings.Contains(e.Hint, "`codexhost codex install`") || !strings.Contains(e.Hint, "CODEXHOST_CODEX_BIN") {
		t.Fatalf("the hint should name every fix: %s", e.Hint)
	}
}

// Copies are judged by what their symlinks resolve to: a link to a binary elsewhere is that
// binary; a binary others may write, a directory or a dangling link is no copy.
func TestPinnedCopyIsCheckedAfterResolvingSymlinks(t *testing.T) {
	t.Parallel()
	prefix := t.TempDir()
	target := installCopy(t, t.TempDir())
	link := filepath.Join(prefix, "node_modules", "@openai", "codex-"+npmPlatform(), "vendor", "triple", "bin", "codex")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindPinnedCopy(prefix); !ok || got != realPath(t, target) {
		t.Fatalf("a link should resolve to its binary: %s %v", got, ok)
	}
	if err := os.Chmod(target, 0o777); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindPinnedCopy(prefix); ok {
		t.Fatalf("a binary anyone may write was taken: %s", got)
	}
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindPinnedCopy(prefix); ok {
		t.Fatalf("a file that is not executable was taken: %s", got)
	}
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindPinnedCopy(prefix); ok {
		t.Fatalf("a directory was taken: %s", got)
	}
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindPinnedCopy(prefix); ok {
		t.Fatalf("a dangling link was taken: %s", got)
	}
}

// The checkout is found from a directory reached through a symlink as well.
func TestCheckoutCopyFollowsALinkedWorkingDirectory(t *testing.T) {
	t.Parallel()
	root, sub := checkout(t, ModulePath)
	link := filepath.Join(t.TempDir(), "work")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(realPath(t, root), ".cache", "codex", PinnedVersion)
	if got := checkoutCopy(link, envOf(nil)); got != want {
		t.Fatalf("checkout copy %q, want %q", got, want)
	}
}

// The install script reads the pinned version from pinned.go: one place for it.
func TestInstallScriptReadsThePinnedVersion(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile("../../scripts/install-codex.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "runtime/appserver/pinned.go") || strings.Contains(string(script), PinnedVersion) {
		t.Fatal("scripts/install-codex.sh should read the version from runtime/appserver/pinned.go, not repeat it")
	}
}

func TestParseModulePath(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"module github.com/codexhost/codexhost\n":               ModulePath,
		"// c\n\nmodule   \"github.com/codexhost/codexhost\"\n": ModulePath,
		"module github.com/codexhost/codexhost // comment\n":    ModulePath,
		"modules x\n":   "",
		"go 1.26\n":     "",
		"module a b\n":  "",
		"module\n":      "",
		"module \"x\n":  "",
		"\tmodule x/y ": "x/y",
	}
	for in, want := range cases {
		if got := ParseModulePath([]byte(in)); got != want {
			t.Errorf("ParseModulePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseModulePath(f *testing.F) {
	for _, s := range []string{"module github.com/codexhost/codexhost\n", "module \"a\"\n", "module `b`", "// module c\nmodule d // e", "module", "\x00module x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := ParseModulePath(b)
		if strings.ContainsAny(p, " \t\n") && !strings.Contains(string(b), "\"") && !strings.Contains(string(b), "`") {
			t.Fatalf("an unquoted module path with spaces: %q from %q", p, b)
		}
		if p != "" && !strings.Contains(string(b), "module") {
			t.Fatalf("a module path without a module directive: %q from %q", p, b)
		}
	})
}
