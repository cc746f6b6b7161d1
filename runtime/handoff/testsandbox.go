package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Test commands run inside bubblewrap, never bare: the whole filesystem read-only, the
// project directory the only writable place (read-only too for a read-only task), a fresh
// /tmp, /proc and /dev, the codexhost home and every Codex home hidden under empty tmpfs
// mounts, no network unless the task has it, and new namespaces so that no process of the
// runtime (nor its open files under /proc) is visible. Codex's own read-only sandbox reads the
// whole disk, so it cannot keep the tokens, the store or auth.json from a test command.

// TestEnv is what test commands run with.
type TestEnv struct {
	Bwrap string   // the bubblewrap binary
	Env   []string // the minimal environment
	// Hide are the directories a test command must never read: the codexhost home, the Codex
	// homes. Each is hidden under an empty tmpfs.
	Hide []string
	// scratch is the task's private temporary directory on the host, shown to its test
	// commands at ScratchDir; set for one runTestsIn.
	scratch string
}

// ScratchDir is where a task's test commands find their private temporary directory, the one
// place besides a writable project they may write: TMPDIR and GOTMPDIR are its tmp, GOCACHE
// and XDG_CACHE_HOME its cache (shared by the task's commands, removed after the last one),
// so that a build tool's temporary files and caches never land in the read-only rest of the
// filesystem, nor in the project as changed files.
const ScratchDir = "/tmp/codexhost-scratch"

// scratchEnv is the environment that points tools at the scratch directory.
func scratchEnv() []string {
	return []string{"TMPDIR=" + ScratchDir + "/tmp", "GOTMPDIR=" + ScratchDir + "/tmp",
		"GOCACHE=" + ScratchDir + "/cache/go-build", "XDG_CACHE_HOME=" + ScratchDir + "/cache"}
}

// withScratch makes the private temporary directory of one task's test commands.
func (te TestEnv) withScratch() (TestEnv, func(), error) {
	dir, err := os.MkdirTemp("", "codexhost-tests-")
	if err != nil {
		return te, nil, err
	}
	for _, sub := range []string{"tmp", "cache/go-build"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			_ = os.RemoveAll(dir)
			return te, nil, err
		}
	}
	te.scratch = dir
	te.Env = append(append([]string(nil), te.Env...), scratchEnv()...)
	return te, func() { _ = os.RemoveAll(dir) }, nil
}

// BwrapFix is the hint of every refusal to run test commands unsandboxed.
const BwrapFix = "install bubblewrap (`apt-get install bubblewrap`, or the Codex install that ships it next to its binary) and allow unprivileged user namespaces; codexhost never runs test commands outside its sandbox"

// LocateBwrap finds bubblewrap: the copy the Codex npm package ships next to its binary
// (vendor/<triple>/codex-resources/bwrap), else bwrap on PATH.
func LocateBwrap(codexBin string, lookPath func(string) (string, error)) (string, error) {
	if codexBin != "" {
		if real, err := filepath.EvalSymlinks(codexBin); err == nil {
			dir := filepath.Dir(real)
			for _, c := range []string{filepath.Join(dir, "bwrap"), filepath.Join(dir, "..", "codex-resources", "bwrap")} {
				if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
					return filepath.Clean(c), nil
				}
			}
		}
	}
	if p, err := lookPath("bwrap"); err == nil {
		return p, nil
	}
	return "", model.Errorf(model.CodeFailedPrecondition, BwrapFix, "no bubblewrap (bwrap) next to the codex binary or on PATH: test commands cannot be sandboxed")
}

// heldDir is the project directory opened once when the task starts. Test commands run in
// the directory this descriptor names (bound by /proc/self/fd/3), not in whatever the path
// names later: swapping the project directory for a symlink while the task runs cannot move
// their writes outside the root.
type heldDir struct {
	f    *os.File
	path string // the resolved path at the start, where the sandbox shows it
	root string
}

func holdDir(p Place) (*heldDir, error) {
	f, err := os.OpenFile(p.Dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "give an existing project directory", "open the project directory %s: %v", p.Dir, err)
	}
	d := &heldDir{f: f, path: p.Dir, root: p.Root}
	// What is held is checked, not the path: a swap between Resolve and the open is caught.
	if err := d.check(); err != nil {
		_ = f.Close()
		return nil, err
	}
	return d, nil
}

func (d *heldDir) close() {
	if d != nil {
		_ = d.f.Close()
	}
}

// check says the held directory still lies in its root and its path still names it (device
// and inode, the path not followed): the sandbox shows it at that path, and a path swapped
// for a symlink or another directory would put it somewhere else.
func (d *heldDir) check() error {
	// The kernel's name of the held directory, symlinks already resolved.
	now, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(d.f.Fd())))
	if err != nil || !Inside(d.root, now) {
		return model.Errorf(model.CodeFailedPrecondition, "keep the project directory inside its allowed root while the task runs",
			"the project directory %s was moved outside its root %s", d.path, d.root)
	}
	var held, at syscall.Stat_t
	if err := syscall.Fstat(int(d.f.Fd()), &held); err != nil {
		return err
	}
	if err := syscall.Lstat(d.path, &at); err != nil || at.Mode&syscall.S_IFMT != syscall.S_IFDIR || at.Dev != held.Dev || at.Ino != held.Ino {
		return model.Errorf(model.CodeFailedPrecondition, "leave the project directory in place while its task runs",
			"the project directory %s was replaced (by a symlink or another directory) while the task ran", d.path)
	}
	return nil
}

// bwrapArgs are the sandbox options of one test command run in dir (bound from fd 3).
func (te TestEnv) bwrapArgs(sb Sandbox, dir string) []string {
	args := []string{"--die-with-parent", "--new-session", "--unshare-all"}
	if sb.Network {
		args = append(args, "--share-net")
	}
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	var before, after []string
	for _, h := range te.Hide {
		real, err := filepath.EvalSymlinks(h)
		if err != nil {
			continue // nothing there to read
		}
		// A home that contains the project is hidden first and the project bound over it;
		// one inside the project (or elsewhere) is hidden after, over the bind.
		if Inside(real, dir) {
			before = append(before, "--tmpfs", real)
		} else {
			after = append(after, "--tmpfs", real)
		}
	}
	bind := "--bind"
	if sb.Mode != SandboxWorkspaceWrite {
		bind = "--ro-bind"
	}
	args = append(args, before...)
	args = append(args, bind, "/proc/self/fd/3", dir)
	args = append(args, after...)
	if te.scratch != "" {
		args = append(args, "--bind", te.scratch, ScratchDir)
	}
	return append(args, "--chdir", dir)
}

// sandboxed is the bwrap command that runs argv under the sandbox in the held directory.
func (te TestEnv) sandboxed(ctx context.Context, sb Sandbox, d *heldDir, argv ...string) *exec.Cmd {
	args := append(te.bwrapArgs(sb, d.path), "--")
	cmd := exec.CommandContext(ctx, te.Bwrap, append(args, argv...)...)
	cmd.ExtraFiles = []*os.File{d.f}
	cmd.Env = te.Env
	cmd.Dir = "/"
	setProcessGroup(cmd)
	return cmd
}

// probe runs `true` under the sandbox: when bubblewrap cannot set it up (no user namespaces,
// say), no test command runs at all.
func (te TestEnv) probe(ctx context.Context, sb Sandbox, d *heldDir) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := te.sandboxed(ctx, sb, d, "/bin/sh", "-c", "true")
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return model.Errorf(model.CodeFailedPrecondition, BwrapFix, "the test sandbox (%s) does not start: %v: %s", te.Bwrap, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// runTest runs one command with `sh -c` in the held directory under the sandbox, bounded in
// time, keeping the tail of its combined output.
func runTest(ctx context.Context, te TestEnv, sb Sandbox, d *heldDir, command string, timeout time.Duration) TestResult {
	res := TestResult{Command: command, ExitCode: -1}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := te.sandboxed(ctx, sb, d, "/bin/sh", "-c", command)
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	res.DurationMs = time.Since(start).Milliseconds()
	res.OutputTail = out.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.TimedOut, res.Error = true, "timed out after "+timeout.String()
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		res.Error = err.Error()
	default:
		res.ExitCode = 0
	}
	return res
}

// runTestsIn runs the commands in the held directory once the sandbox is known to start; a
// refusal is one result naming why nothing ran.
func runTestsIn(ctx context.Context, te TestEnv, sb Sandbox, d *heldDir, commands []string, each func(int, TestResult)) []TestResult {
	refused := func(err error) []TestResult {
		me := model.AsError(err)
		msg := "test commands were not run: " + me.Message
		if me.Hint != "" {
			msg += " (" + me.Hint + ")"
		}
		return []TestResult{{Command: "(all)", ExitCode: -1, Error: msg}}
	}
	if d == nil {
		return refused(fmt.Errorf("the project directory was not held"))
	}
	if err := d.check(); err != nil {
		return refused(err)
	}
	te, cleanup, err := te.withScratch()
	if err != nil {
		return refused(fmt.Errorf("make the test commands' temporary directory: %w", err))
	}
	defer cleanup()
	if err := te.probe(ctx, sb, d); err != nil {
		return refused(err)
	}
	out := make([]TestResult, 0, len(commands))
	for i, c := range commands {
		tr := runTest(ctx, te, sb, d, c, testCommandTimeout)
		if each != nil {
			each(i, tr)
		}
		out = append(out, tr)
	}
	return out
}
