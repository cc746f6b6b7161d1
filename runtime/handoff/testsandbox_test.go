package handoff

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
)

// sandboxFixture is a project root with a project, and homes holding real secrets outside
// /tmp (the sandbox's fresh /tmp would hide them anyway): only the sandbox's own hiding can
// keep a test command from them.
type sandboxFixture struct {
	te                        TestEnv
	root, dir, outside        string
	home, codexHome           string
	tokenSecret, authSecret   string
	workspaceWrite, readOnly  Sandbox
	homeInProject, tokenInDir string
}

func newSandboxFixture(t *testing.T) sandboxFixture {
	t.Helper()
	bwrap, err := LocateBwrap(codextest.CodexBin(t), exec.LookPath)
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("/var/tmp", "chh-sandbox")
	if err != nil {
		t.Skipf("no directory outside /tmp: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	base, _ = filepath.EvalSymlinks(base)
	f := sandboxFixture{root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside"), home: filepath.Join(base, "codexhost-home"),
		codexHome: filepath.Join(base, "codex-home"), tokenSecret: "chtok_operator_" + filepath.Base(base), authSecret: "sk-auth-" + filepath.Base(base)}
	f.dir = filepath.Join(f.root, "proj")
	// A second codexhost home inside the project: hidden even though the project is bound.
	f.homeInProject = filepath.Join(f.dir, ".codexhost")
	mkdirs(t, f.dir, f.outside, f.home, f.codexHome, f.homeInProject)
	f.tokenInDir = filepath.Join(f.homeInProject, "operator.token")
	for p, v := range map[string]string{filepath.Join(f.home, "operator.token"): f.tokenSecret, filepath.Join(f.home, "config.toml"): f.tokenSecret,
		filepath.Join(f.codexHome, "auth.json"): `{"OPENAI_API_KEY":"` + f.authSecret + `"}`, f.tokenInDir: f.tokenSecret} {
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.te = TestEnv{Bwrap: bwrap, Env: []string{"PATH=/usr/bin:/bin", "LANG=C"}, Hide: []string{f.home, f.codexHome, f.homeInProject}}
	f.workspaceWrite = Sandbox{Mode: SandboxWorkspaceWrite, Dir: f.dir}
	f.readOnly = Sandbox{Mode: SandboxReadOnly, Dir: f.dir}
	return f
}

func (f sandboxFixture) hold(t *testing.T) *heldDir {
	t.Helper()
	d, err := holdDir(Place{Dir: f.dir, Root: f.root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	return d
}

// A test command reads neither the codexhost home nor the Codex home, writes nothing outside
// the project, and still writes inside it.
func TestTestCommandsCannotReadTheHomesOrWriteOutside(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t)
	d := f.hold(t)
	cmds := []string{
		"cat " + filepath.Join(f.home, "operator.token"),
		"cat " + filepath.Join(f.home, "config.toml"),
		"cat " + filepath.Join(f.codexHome, "auth.json"),
		"cat " + f.tokenInDir,
		"echo pwned > " + filepath.Join(f.outside, "pwned"),
		"echo ok > built.txt && cat built.txt",
		"ls /proc | grep -c '^[0-9]'", // only the sandbox's own processes
	}
	res := runTestsIn(context.Background(), f.te, f.workspaceWrite, d, cmds, nil)
	if len(res) != len(cmds) {
		t.Fatalf("results %+v", res)
	}
	for i, r := range res[:5] {
		if r.ExitCode == 0 || strings.Contains(r.OutputTail, f.tokenSecret) || strings.Contains(r.OutputTail, f.authSecret) {
			t.Errorf("%q: exit %d, output %q", cmds[i], r.ExitCode, r.OutputTail)
		}
	}
	if _, err := os.Stat(filepath.Join(f.outside, "pwned")); !os.IsNotExist(err) {
		t.Errorf("a test command wrote outside the project: %v", err)
	}
	if res[5].ExitCode != 0 || strings.TrimSpace(res[5].OutputTail) != "ok" {
		t.Errorf("writing inside the project: %+v", res[5])
	}
	if n := strings.TrimSpace(res[6].OutputTail); n == "" || len(n) > 1 { // bwrap, sh, ls, grep
		t.Errorf("processes visible in the sandbox: %s", n)
	}
	// A read-only task's test commands write nothing, not even in the project.
	ro := runTestsIn(context.Background(), f.te, f.readOnly, d, []string{"echo x > ro.txt"}, nil)
	if ro[0].ExitCode == 0 {
		t.Errorf("read-only: %+v", ro[0])
	}
}

// Swapping the project directory for a symlink while the task runs never moves the test
// commands' writes outside the root: the path no longer names the directory held since the
// start, so no test command runs, and none runs once the directory itself left its root.
func TestTestCommandsStayInTheHeldDirectory(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t)
	d := f.hold(t)
	moved := filepath.Join(f.root, "proj.moved")
	if err := os.Rename(f.dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, f.dir); err != nil {
		t.Fatal(err)
	}
	res := runTestsIn(context.Background(), f.te, f.workspaceWrite, d, []string{"echo x > written"}, nil)
	if len(res) != 1 || res[0].Command != "(all)" || !strings.Contains(res[0].Error, "was replaced") {
		t.Fatalf("swapped: %+v", res)
	}
	for _, p := range []string{filepath.Join(f.outside, "written"), filepath.Join(moved, "written")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("a test command ran after the swap: %s: %v", p, err)
		}
	}
	// Put back, the held directory runs its tests again.
	if err := os.Remove(f.dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, f.dir); err != nil {
		t.Fatal(err)
	}
	if res := runTestsIn(context.Background(), f.te, f.workspaceWrite, d, []string{"echo x > written"}, nil); res[0].ExitCode != 0 {
		t.Fatalf("back in place: %+v", res)
	}

	gone := filepath.Join(f.outside, "proj.gone")
	if err := os.Rename(f.dir, gone); err != nil {
		t.Fatal(err)
	}
	res = runTestsIn(context.Background(), f.te, f.workspaceWrite, d, []string{"echo y > again"}, nil)
	if len(res) != 1 || res[0].Command != "(all)" || !strings.Contains(res[0].Error, "moved outside its root") {
		t.Fatalf("moved out: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(gone, "again")); !os.IsNotExist(err) {
		t.Fatalf("a test command ran in a directory outside the root: %v", err)
	}
}

// When bubblewrap cannot set up its sandbox (no user namespaces, say), no test command runs
// unsandboxed: the result names the fix. Without any bubblewrap, the same.
func TestTestCommandsRefusedWithoutASandbox(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t)
	d := f.hold(t)
	denied := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(denied, []byte("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	te := f.te
	te.Bwrap = denied
	res := runTestsIn(context.Background(), te, f.workspaceWrite, d, []string{"echo ran > ran.txt"}, nil)
	if len(res) != 1 || !strings.Contains(res[0].Error, "No permissions to create new namespace") || !strings.Contains(res[0].Error, "install bubblewrap") {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "ran.txt")); !os.IsNotExist(err) {
		t.Fatal("the command ran without the sandbox")
	}
	if _, err := LocateBwrap("", func(string) (string, error) { return "", os.ErrNotExist }); err == nil || !strings.Contains(err.Error(), "bubblewrap") {
		t.Fatalf("no bwrap: %v", err)
	}
}

// `go test ./...` runs as a test command: its temporary files and build cache go to the
// task's private scratch directory (TMPDIR, GOTMPDIR, GOCACHE), not to the read-only rest of
// the filesystem nor into the project, also for a read-only task; the directory is removed
// after the last command.
func TestTestCommandsGetAPrivateTemporaryDirectory(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH")
	}
	f := newSandboxFixture(t)
	f.te.Env = []string{"PATH=" + filepath.Dir(goBin) + ":/usr/bin:/bin", "HOME=" + os.Getenv("HOME"), "LANG=C", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	for p, body := range map[string]string{"go.mod": "module example.com/demo\n\ngo 1.21\n",
		"demo_test.go": "package demo\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestTemp(t *testing.T) {\n\tif err := os.WriteFile(t.TempDir()+\"/x\", nil, 0o600); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n"} {
		if err := os.WriteFile(filepath.Join(f.dir, p), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d := f.hold(t)
	before, _ := os.ReadDir(f.dir)
	cmds := []string{"go test ./...", `case "$TMPDIR$GOTMPDIR$GOCACHE" in */tmp/codexhost-scratch*) echo x > "$TMPDIR/x" && test -d "$GOCACHE" ;; *) exit 9 ;; esac`}
	if testing.Short() {
		cmds = cmds[1:] // a cold build cache costs most of a minute
	}
	// The read-only task is the strict case (the project is not writable either); a
	// workspace-write one gets the same directory.
	for _, run := range []struct {
		sb   Sandbox
		cmds []string
	}{{f.readOnly, cmds}, {f.workspaceWrite, cmds[1:]}} {
		res := runTestsIn(context.Background(), f.te, run.sb, d, run.cmds, nil)
		for i, r := range res {
			if r.ExitCode != 0 {
				t.Fatalf("%s: %q: exit %d %s\n%s", run.sb.Mode, run.cmds[i], r.ExitCode, r.Error, r.OutputTail)
			}
		}
	}
	if after, _ := os.ReadDir(f.dir); len(after) != len(before) {
		t.Fatalf("the test commands left files in the project: %v", after)
	}
}
