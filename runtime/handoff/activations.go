package handoff

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/runtime/api"
)

// SkillActivationRecord is one read of a skill's SKILL.md: ids, paths and a digest, no
// content. It lives in an append-only 0600 file under the home.
type SkillActivationRecord struct {
	ID     string    `json:"id"`
	Skill  string    `json:"skill"`
	File   string    `json:"file"`   // SKILL.md, symlinks resolved
	Folder string    `json:"folder"` // the skill's folder, symlinks resolved
	SHA256 string    `json:"sha256"`
	By     string    `json:"by"` // the principal that read it (activationPrincipal)
	At     time.Time `json:"at"`
}

var activationIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^act_[0-9a-f-]{36}$`) })

func (f Files) activationsPath() string { return filepath.Join(f.Home, "skills", "activations.jsonl") }

// activate records a read of a skill and returns its activation id.
func (s *Service) activate(rec SkillActivationRecord) (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	rec.ID, rec.At = "act_"+id.String(), s.opts.Now()
	b, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	s.actMu.Lock()
	defer s.actMu.Unlock()
	path := s.files.activationsPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := fh.Write(append(b, '\n')); err != nil {
		fh.Close()
		return "", err
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return "", err
	}
	return rec.ID, fh.Close()
}

// activations reads every activation, oldest first.
func (s *Service) activations() ([]SkillActivationRecord, error) {
	s.actMu.Lock()
	defer s.actMu.Unlock()
	b, err := os.ReadFile(s.files.activationsPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SkillActivationRecord
	for _, line := range splitLines(b) {
		var r SkillActivationRecord
		if json.Unmarshal(line, &r) == nil && r.ID != "" {
			out = append(out, r)
		}
	}
	return out, nil
}

// activationPrincipal is whom an activation belongs to: a client, or an agent's own thread.
// An activation id proves that this principal read the skill, so no other may present it.
func activationPrincipal(c api.Caller) string {
	if c.Kind == api.CallerRuntime && c.Thread != "" {
		return "thread:" + c.Thread
	}
	return CallerName(c)
}

// activation finds the activation id for the skill whose SKILL.md is file; ok is false when
// the id is unknown or belongs to another skill.
func (s *Service) activation(id, file string) (SkillActivationRecord, bool) {
	if !activationIDPattern().MatchString(id) {
		return SkillActivationRecord{}, false
	}
	all, err := s.activations()
	if err != nil {
		return SkillActivationRecord{}, false
	}
	for _, r := range all {
		if r.ID == id {
			return r, r.File == file
		}
	}
	return SkillActivationRecord{}, false
}

// latestActivations maps each activated SKILL.md (resolved) to its newest activation.
func (s *Service) latestActivations() map[string]SkillActivationRecord {
	all, _ := s.activations()
	out := make(map[string]SkillActivationRecord, len(all))
	for _, r := range all {
		out[r.File] = r
	}
	return out
}

// withActivations marks the recommended skills that have been read since, so the handoff
// shows whether each has been read yet.
func (s *Service) withActivations(routing SkillRouting) []Activation {
	if len(routing.Activations) == 0 {
		return routing.Activations
	}
	latest := s.latestActivations()
	out := make([]Activation, len(routing.Activations))
	for i, a := range routing.Activations {
		out[i] = a
		// Activations are made alongside the recommendations, in their order: the i-th is of
		// the i-th recommendation's file (two skills may share a name, never a file).
		if a.Activated || i >= len(routing.Recommendations) || routing.Recommendations[i].Skill.Name != a.Skill {
			continue
		}
		real, err := filepath.EvalSymlinks(routing.Recommendations[i].Skill.File)
		if rec, ok := latest[real]; err == nil && ok {
			out[i].Activated, out[i].ActivationID = true, rec.ID
		}
	}
	return out
}
