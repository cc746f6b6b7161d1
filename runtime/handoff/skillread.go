package handoff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// SkillRoute ranks the skills of an approved skill root for a task, as handoff.create does
// for a skillTask.
func (s *Service) SkillRoute(ctx context.Context, caller api.Caller, p api.SkillRouteParams) (api.SkillRouteResult, error) {
	n, err := boundedInt("maxResults", p.MaxResults, 1, api.MaxSkillResults, api.DefaultSkillResults)
	if err != nil {
		return api.SkillRouteResult{}, err
	}
	if strings.TrimSpace(p.Task) == "" || utf8.RuneCountInString(p.Task) > model.MaxSkillTaskChars {
		return api.SkillRouteResult{}, model.Errorf(model.CodeInvalidArgument, "give the task text, 1 to 4000 characters", "task is empty or too long")
	}
	root, err := s.skillRoot(p.SkillRoot)
	if err != nil {
		return api.SkillRouteResult{}, err
	}
	skills, unread := loadSkills(root)
	recs := Route(skills, p.Task, n)
	return api.SkillRouteResult{SkillRoot: root, Recommendations: apiRecs(SkillRouting{Recommendations: recs}), UnreadFolders: unread}, nil
}

// SkillRead returns a skill's SKILL.md and activates the skill: the activation id is what
// skill.bundle needs to include the files SKILL.md references.
func (s *Service) SkillRead(ctx context.Context, caller api.Caller, p api.SkillReadParams) (api.SkillReadResult, error) {
	limit, err := boundedInt("maxBytes", p.MaxBytes, api.MinSkillReadBytes, api.MaxSkillReadBytes, api.DefaultSkillReadBytes)
	if err != nil {
		return api.SkillReadResult{}, err
	}
	sk, err := s.findSkill(p.SkillRoot, p.Skill)
	if err != nil {
		return api.SkillReadResult{}, err
	}
	b, err := os.ReadFile(sk.real)
	if err != nil {
		return api.SkillReadResult{}, model.Errorf(model.CodeFailedPrecondition, "check the skill's files", "read %s: %v", sk.File, err)
	}
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	id, err := s.activate(SkillActivationRecord{Skill: sk.Name, File: sk.real, Folder: sk.folder, SHA256: digest, By: activationPrincipal(caller)})
	if err != nil {
		return api.SkillReadResult{}, model.Errorf(model.CodeInternal, "check the home's permissions and free space", "record the activation: %v", err)
	}
	content, truncated := cutUTF8(b, limit)
	return api.SkillReadResult{Skill: sk.Name, Description: sk.Description, File: sk.File, Size: int64(len(b)), SHA256: digest,
		Content: content, Truncated: truncated, ActivationID: id}, nil
}

// SkillBundle returns SKILL.md and, with a valid activation id of this skill, the files it
// references inside its own folder. A reference that resolves (symlinks followed) outside
// the folder is refused, never read.
func (s *Service) SkillBundle(ctx context.Context, caller api.Caller, p api.SkillBundleParams) (api.SkillBundleResult, error) {
	budget, err := boundedInt("maxBytes", p.MaxBytes, 1, api.MaxSkillBundleBytes, api.DefaultSkillBundle)
	if err != nil {
		return api.SkillBundleResult{}, err
	}
	maxRefs := api.DefaultSkillReferences
	if p.MaxReferenceFiles != nil {
		if maxRefs = *p.MaxReferenceFiles; maxRefs < 0 || maxRefs > api.MaxSkillReferenceFiles {
			return api.SkillBundleResult{}, model.Errorf(model.CodeInvalidArgument, "give maxReferenceFiles from 0 to 40 (default 12)", "maxReferenceFiles %d is out of range", maxRefs)
		}
	}
	sk, err := s.findSkill(p.SkillRoot, p.Skill)
	if err != nil {
		return api.SkillBundleResult{}, err
	}
	out := api.SkillBundleResult{Skill: sk.Name, Folder: sk.folder, Files: []api.SkillFile{}, References: []string{}}
	main, md, err := bundleFile(sk.real, "SKILL.md", &budget)
	if err != nil {
		return out, model.Errorf(model.CodeFailedPrecondition, "check the skill's files", "read %s: %v", sk.File, err)
	}
	out.Files = append(out.Files, main)
	refs := ParseSkillReferences(string(md))
	for _, r := range refs {
		out.References = append(out.References, r.Path)
	}
	act, activated := s.activation(p.ActivationID, sk.real)
	if activated && act.By != activationPrincipal(caller) {
		return api.SkillBundleResult{}, model.Errorf(model.CodePermissionDenied, "call skill.read for this skill yourself and pass the activationId it returns you",
			"activationId %s was made by another client; an activation is its maker's only", p.ActivationID)
	}
	out.Activated = activated
	switch {
	case p.IncludeReferences != nil && !*p.IncludeReferences:
		return out, nil
	case p.ActivationID == "":
		out.Notes = append(out.Notes, "referenced files need an activation: call skill.read for this skill first and pass its activationId")
		return out, nil
	case !out.Activated:
		out.Notes = append(out.Notes, "activationId is not an activation of skill "+sk.Name+": call skill.read for it and pass the id it returns")
		return out, nil
	}
	s.bundleReferences(&out, sk.folder, refs, maxRefs, &budget)
	return out, nil
}

// bundleReferences adds the referenced files that resolve inside folder, up to maxRefs.
func (s *Service) bundleReferences(out *api.SkillBundleResult, folder string, refs []SkillReference, maxRefs int, budget *int) {
	for _, r := range refs {
		real, why := resolveReference(folder, r.Path)
		switch {
		case why == errMissing && !r.Linked:
			continue // a code span that names no file here is not a reference
		case why != nil:
			out.Refused = append(out.Refused, api.SkillRefusal{Reference: r.Path, Reason: why.Error()})
			continue
		case filepath.Base(real) == "SKILL.md" && filepath.Dir(real) == folder:
			continue
		case len(out.Files)-1 >= maxRefs:
			out.Omitted = append(out.Omitted, r.Path)
			continue
		}
		rel, _ := filepath.Rel(folder, real)
		f, _, err := bundleFile(real, filepath.ToSlash(rel), budget)
		if err != nil {
			out.Refused = append(out.Refused, api.SkillRefusal{Reference: r.Path, Reason: "cannot be read: " + err.Error()})
			continue
		}
		out.Files = append(out.Files, f)
	}
	if len(out.Omitted) > 0 {
		out.Notes = append(out.Notes, "more references than maxReferenceFiles: raise it (at most 40) to include the omitted ones")
	}
}

var errMissing = errors.New("does not exist in the skill folder")

// resolveReference resolves a reference against the skill folder with symlinks followed and
// refuses what lands outside it or is not a regular file.
func resolveReference(folder, ref string) (string, error) {
	if filepath.IsAbs(ref) || strings.HasPrefix(ref, "~") {
		return "", errors.New("is an absolute path: only files inside the skill folder are bundled")
	}
	joined := filepath.Join(folder, filepath.FromSlash(ref))
	if !Inside(folder, joined) {
		return "", errors.New("escapes the skill folder")
	}
	real, err := filepath.EvalSymlinks(joined)
	if errors.Is(err, os.ErrNotExist) {
		return "", errMissing
	}
	if err != nil {
		return "", errors.New("cannot be resolved")
	}
	if !Inside(folder, real) {
		return "", errors.New("resolves outside the skill folder (symlink)")
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return "", errors.New("is not a regular file")
	}
	return real, nil
}

// bundleFile digests a whole file and keeps as much of its text as the budget allows.
// Content that is not UTF-8 text is left out.
func bundleFile(path, rel string, budget *int) (api.SkillFile, []byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return api.SkillFile{}, nil, err
	}
	defer fh.Close()
	h := sha256.New()
	head := &limitedBuffer{max: maxSkillFile}
	n, err := io.Copy(io.MultiWriter(h, head), fh)
	if err != nil {
		return api.SkillFile{}, nil, err
	}
	f := api.SkillFile{Path: rel, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	text, cut := cutUTF8(head.b, *budget)
	// The kept head may end inside a character; a text that is still not UTF-8 is binary.
	for i := 0; i < utf8.UTFMax && !utf8.ValidString(text) && text != ""; i++ {
		text, cut = text[:len(text)-1], true
	}
	if utf8.ValidString(text) {
		f.Content, f.Truncated = text, cut || int64(len(head.b)) < n
		*budget -= len(text)
	}
	return f, head.b, nil
}

// limitedBuffer keeps the first max bytes written to it and discards the rest.
type limitedBuffer struct {
	b   []byte
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// cutUTF8 cuts b to at most n bytes without splitting a character.
func cutUTF8(b []byte, n int) (string, bool) {
	if len(b) <= n {
		return string(b), false
	}
	if n <= 0 {
		return "", true
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]), true
}

type foundSkill struct {
	Skill
	real   string // SKILL.md, symlinks resolved
	folder string // its folder, symlinks resolved
}

func (s *Service) skillRoot(given string) (string, error) {
	root, err := ResolveSkillRoot(s.policy(), given)
	if err != nil {
		return "", err
	}
	if root == "" {
		return "", model.Errorf(model.CodeFailedPrecondition, "configure handoff.skill_roots in config.toml", "no approved skill root is configured")
	}
	return root, nil
}

// findSkill finds a skill of an approved root by its front-matter name or, failing that, its
// folder name. A name several skills share is refused with their folders (which are unique),
// so that the caller picks one rather than getting whichever sorts first.
func (s *Service) findSkill(rootGiven, name string) (foundSkill, error) {
	if strings.TrimSpace(name) == "" {
		return foundSkill{}, model.Errorf(model.CodeInvalidArgument, "name the skill (its name from skill.route)", "no skill given")
	}
	root, err := s.skillRoot(rootGiven)
	if err != nil {
		return foundSkill{}, err
	}
	skills := LoadSkills(root)
	names := make([]string, 0, len(skills))
	var byName, byFolder []Skill
	for _, sk := range skills {
		names = append(names, sk.Name)
		switch {
		case sk.Name == name:
			byName = append(byName, sk)
		case skillFolder(sk) == name:
			byFolder = append(byFolder, sk)
		}
	}
	match := byName
	if len(match) == 0 {
		match = byFolder
	}
	switch len(match) {
	case 0:
		hint := "use a skill name that skill.route returns"
		if filepath.Base(name) == name && name != "." && name != ".." {
			if st, err := os.Stat(filepath.Join(root, name)); err == nil && st.IsDir() {
				if _, why := loadSkill(root, name); why != "" {
					hint = "folder " + clip(name, 80) + " is not a skill: " + why
				}
			}
		}
		return foundSkill{}, model.Errorf(model.CodeInvalidArgument, hint, "no skill %q in %s", clip(name, 80), root).WithDetail("skills", names)
	case 1:
	default:
		folders := make([]string, 0, len(match))
		for _, sk := range match {
			folders = append(folders, skillFolder(sk))
		}
		return foundSkill{}, model.Errorf(model.CodeInvalidArgument, "name the skill by its folder instead: "+strings.Join(folders, " or "),
			"%d skills in %s are named %q", len(match), root, clip(name, 80)).WithDetail("folders", folders)
	}
	real, err := filepath.EvalSymlinks(match[0].File)
	if err != nil || !Inside(root, real) {
		return foundSkill{}, model.Errorf(model.CodeFailedPrecondition, "check the skill's files", "skill %q changed while it was read", clip(name, 80))
	}
	return foundSkill{Skill: match[0], real: real, folder: filepath.Dir(real)}, nil
}

// skillFolder is the name of a skill's folder in its root.
func skillFolder(sk Skill) string { return filepath.Base(filepath.Dir(sk.File)) }

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// boundedInt applies a default to 0 and checks the range.
func boundedInt(field string, v, lo, hi, def int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < lo || v > hi {
		return 0, model.Errorf(model.CodeInvalidArgument, "give "+field+" from "+itoa(lo)+" to "+itoa(hi)+" (default "+itoa(def)+")", "%s %d is out of range", field, v)
	}
	return v, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
