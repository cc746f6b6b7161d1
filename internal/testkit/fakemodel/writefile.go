package fakemodel

import (
	"path"
	"strings"
)

// WriteFile makes the model create the file rel (relative to the thread's working directory)
// with content, through the shell tool the request offers: Codex runs the write in the
// thread's sandbox, so a read-only thread fails it with "Read-only file system". The
// follow-up request gets a message, as with Shell.
func WriteFile(rel, content string) Behavior {
	cmd := "printf '%s' " + shellQuote(content) + " > " + shellQuote(rel)
	if dir := path.Dir(rel); dir != "." {
		cmd = "mkdir -p " + shellQuote(dir) + " && " + cmd
	}
	return Shell(cmd)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
