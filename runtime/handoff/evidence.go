package handoff

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
)

// Bounds of the evidence codexhost gathers after a turn.
const (
	maxSnapshotFiles   = 50000
	testCommandTimeout = 2 * time.Minute
	outputTailBytes    = 4000
	gitTimeout         = 20 * time.Second
)

// fileState is what a snapshot keeps of a file: enough to tell that it changed.
type fileState struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// snapshot maps slash-separated relative paths to their state; .git is left out.
type snapshot struct {
	files     map[string]fileState
	truncated bool
}

func takeSnapshot(dir string) snapshot {
	s := snapshot{files: map[string]fileState{}}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if len(s.files) >= maxSnapshotFiles {
			s.truncated = true
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		s.files[filepath.ToSlash(rel)] = fileState{size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
		return nil
	})
	return s
}

// ChangedFile is a file the task added, modified or deleted.
type ChangedFile = api.TaskChangedFile

// changes compares two snapshots, sorted by path.
func changes(before, after snapshot) []ChangedFile {
	var out []ChangedFile
	for p, a := range after.files {
		b, ok := before.files[p]
		switch {
		case !ok:
			out = append(out, ChangedFile{Path: p, Change: "added"})
		case a != b:
			out = append(out, ChangedFile{Path: p, Change: "modified"})
		}
	}
	for p := range before.files {
		if _, ok := after.files[p]; !ok {
			out = append(out, ChangedFile{Path: p, Change: "deleted"})
		}
	}
	slices.SortFunc(out, func(a, b ChangedFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// gitRoot reports whether dir is the top of a git work tree or inside one.
func gitRoot(ctx context.Context, dir string) (string, bool) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", false
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	return top, err == nil
}

// addNumstat fills line counts from `git diff --numstat` (tracked files) for a git tree.
func addNumstat(ctx context.Context, dir string, files []ChangedFile) {
	out, err := git(ctx, dir, "diff", "--numstat", "--relative", "HEAD", "--")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		add, err1 := strconv.Atoi(f[0])
		del, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		for i := range files {
			if files[i].Path == f[2] {
				files[i].Added, files[i].Deleted = &add, &del
			}
		}
	}
}

// gitDiff is the diff of the changed files that no deny glob matches: a denied file's content
// never appears. Tracked files are diffed against HEAD; an added file (untracked, or staged
// by the task) as a new file against /dev/null, so a file the task created shows its content.
func gitDiff(ctx context.Context, dir string, files []ChangedFile) string {
	args := []string{"diff", "--relative", "HEAD", "--"}
	n := 0
	for _, f := range files {
		if f.DeniedBy == "" && f.Change != "added" {
			args = append(args, ":(literal)"+f.Path)
			n++
		}
	}
	var b strings.Builder
	if n > 0 {
		out, _ := git(ctx, dir, args...)
		b.Write(out)
	}
	for i := range files {
		f := &files[i]
		if f.DeniedBy != "" || f.Change != "added" || b.Len() > maxStoredDiff {
			continue
		}
		// --no-index exits 1 when the files differ, which a new file always does.
		out, _ := git(ctx, dir, "diff", "--no-index", "--", os.DevNull, f.Path)
		b.Write(out)
		if f.Added == nil {
			added := addedLines(out)
			zero := 0
			f.Added, f.Deleted = &added, &zero
		}
	}
	return b.String()
}

// addedLines counts the added lines of a new file's diff.
func addedLines(diff []byte) int {
	n := 0
	for _, line := range bytes.Split(diff, []byte("\n")) {
		if len(line) > 0 && line[0] == '+' && !bytes.HasPrefix(line, []byte("+++ ")) {
			n++
		}
	}
	return n
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.quotepath=off"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	return cmd.Output()
}

// TestResult is one test command run by codexhost after the turn.
type TestResult = api.TaskTest

// tailBuffer keeps the last outputTailBytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*outputTailBytes {
		t.b = append([]byte(nil), t.b[len(t.b)-outputTailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	b := t.b
	if len(b) > outputTailBytes {
		b = b[len(b)-outputTailBytes:]
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

// ArtifactCheck says whether an expected artifact exists inside the project directory.
type ArtifactCheck = api.TaskArtifact

func checkArtifacts(dir string, paths []string) []ArtifactCheck {
	out := make([]ArtifactCheck, 0, len(paths))
	for _, p := range paths {
		c := ArtifactCheck{Path: p}
		real, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.FromSlash(p)))
		switch {
		case err != nil:
			c.Reason = "not found"
		case !Inside(dir, real):
			c.Reason = "resolves outside the project directory"
		default:
			c.Exists = true
		}
		out = append(out, c)
	}
	return out
}
