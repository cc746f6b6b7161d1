package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codexhost/codexhost/internal/atomicfile"
)

// The TOML encoder writes values, not comments, so a rewrite of config.toml (client add, node
// allow, doctor --fix) drops the notes a person wrote in it. Rather than lose them silently,
// the first rewrite that drops any keeps the previous file beside it and says where.

// header is the comment every rewrite starts the file with; it is never a person's note.
const header = "# codexhost configuration"

// droppedComments reports whether a comment of old (its text from a '#') is missing from
// updated. A '#' inside a string counts too; it survives the rewrite, so it is not reported.
func droppedComments(old, updated []byte) bool {
	for _, line := range strings.Split(string(old), "\n") {
		i := strings.IndexByte(line, '#')
		if i < 0 {
			continue
		}
		c := strings.TrimSpace(line[i:])
		if c == header || c == "#" {
			continue
		}
		if !bytes.Contains(updated, []byte(c)) {
			return true
		}
	}
	return false
}

// keepPrevious writes old, the file before a rewrite that drops its comments, to
// config.toml.before-<time> in home (0600) and returns its path.
func keepPrevious(home string, old []byte, now time.Time) (string, error) {
	path := filepath.Join(home, FileName+".before-"+now.UTC().Format("20060102T150405Z"))
	if err := atomicfile.Write(path, old); err != nil {
		return "", fmt.Errorf("keep the previous %s (its comments are not rewritten): %w", FileName, err)
	}
	return path, nil
}

// readPrevious is the current file, or nil when there is none.
func readPrevious(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// KeptNote is what a command says when a rewrite kept the previous file (kept is its path).
func KeptNote(kept string) string {
	return fmt.Sprintf("note: the comments of %s are not rewritten; the previous file, with them, is kept in %s", FileName, kept)
}
