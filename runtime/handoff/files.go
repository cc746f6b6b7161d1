package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/codexhost/codexhost/internal/atomicfile"
	"github.com/codexhost/codexhost/model"
)

// Files are the content files of handoffs and tasks under the home, each 0600 in a 0700
// directory: the handoff text, the task's result (test output tails, changed files) and its
// append-only trace. None of it goes into store records.
type Files struct{ Home string }

var handoffIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^handoff_[0-9a-f-]{36}$`) })

// ValidHandoffID reports whether id has the form of a handoff id, so that it can name a file.
func ValidHandoffID(id string) bool { return handoffIDPattern().MatchString(id) }

func (f Files) handoffDir() string { return filepath.Join(f.Home, "handoffs") }

// HandoffPath is the file of a handoff.
func (f Files) HandoffPath(id string) string { return filepath.Join(f.handoffDir(), id+".json") }

func (f Files) skillsPath(id string) string { return filepath.Join(f.handoffDir(), id+".skills.json") }

func (f Files) taskDir(id model.ThreadID) string { return filepath.Join(f.Home, "tasks", string(id)) }

func (f Files) resultPath(id model.ThreadID) string {
	return filepath.Join(f.taskDir(id), "result.json")
}

func (f Files) tracePath(id model.ThreadID) string {
	return filepath.Join(f.taskDir(id), "trace.jsonl")
}

// writeJSON writes v to path atomically and durably with mode 0600.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// ReadHandoff reads a persisted handoff; THREAD_NOT_FOUND-like INVALID_ARGUMENT when the id is
// unknown.
func (f Files) ReadHandoff(id string) (model.Handoff, error) {
	if !ValidHandoffID(id) {
		return model.Handoff{}, unknownHandoff(id)
	}
	b, err := os.ReadFile(f.HandoffPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return model.Handoff{}, unknownHandoff(id)
	}
	if err != nil {
		return model.Handoff{}, err
	}
	h, err := model.DecodeHandoff(b)
	if err != nil {
		return model.Handoff{}, fmt.Errorf("handoff file %s no longer validates: %w", id, err)
	}
	return h, nil
}

func unknownHandoff(id string) error {
	return model.Errorf(model.CodeInvalidArgument, "list the handoffs with `codexhost handoff list`", "no handoff %q", id)
}

// TraceEntry is one line of a task's trace: ids, decisions and times, never content.
type TraceEntry struct {
	At       time.Time      `json:"at"`
	Event    string         `json:"event"`
	Task     model.ThreadID `json:"task"`
	Handoff  string         `json:"handoff,omitempty"`
	By       string         `json:"by,omitempty"`
	Decision string         `json:"decision,omitempty"`
	Details  map[string]any `json:"details,omitempty"`
}

// appendTrace appends one entry to the task's trace, synced.
func (f Files) appendTrace(e TraceEntry) error {
	path := f.tracePath(e.Task)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := fh.Write(append(b, '\n')); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// readTrace reads a task's trace, oldest first.
func (f Files) readTrace(id model.ThreadID) ([]TraceEntry, error) {
	b, err := os.ReadFile(f.tracePath(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []TraceEntry
	for _, line := range splitLines(b) {
		var e TraceEntry
		if json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return out
}
