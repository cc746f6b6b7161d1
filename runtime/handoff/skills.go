package handoff

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
)

// Skill is one approved local skill: <root>/<name>/SKILL.md with name and description front matter.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	File        string `json:"file"`
}

// Recommendation is a skill routed to a handoff, with its score and why.
type Recommendation struct {
	Skill  Skill  `json:"skill"`
	Score  int    `json:"score"`
	Reason string `json:"reason"`
}

// Activation records whether a recommended skill's SKILL.md has been read (activated) yet.
type Activation struct {
	Skill        string `json:"skill"`
	Activated    bool   `json:"activated"`
	ActivationID string `json:"activationId,omitempty"`
}

// SkillRouting is what create stored about the skills of a handoff (its .skills.json file).
type SkillRouting struct {
	Root            string           `json:"root"`
	Recommendations []Recommendation `json:"recommendations"`
	Activations     []Activation     `json:"skillActivations"`
}

const (
	maxSkillFile  = 64 << 10
	maxSkillsRead = 500
)

// ParseFrontMatter reads the name and description of a SKILL.md: a block between two `---`
// lines at the top, with `key: value` lines (values may be quoted).
func ParseFrontMatter(b []byte) (name, description string, ok bool) {
	// A byte-order mark (some Windows editors write one) is not part of the first line.
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff"))))
	sc.Buffer(make([]byte, 0, 4096), maxSkillFile)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return "", "", false
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "---" {
			return name, description, name != ""
		}
		k, v, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		switch strings.TrimSpace(k) {
		case "name":
			name = v
		case "description":
			description = v
		}
	}
	return "", "", false
}

// LoadSkills lists the skills of root in name order; unreadable or malformed ones are skipped.
func LoadSkills(root string) []Skill {
	skills, _ := loadSkills(root)
	return skills
}

// loadSkills is LoadSkills and the number of folders left unread past the first
// maxSkillsRead skills (in folder-name order), which no route can recommend.
func loadSkills(root string) (out []Skill, unread int) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, 0
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if len(out) >= maxSkillsRead {
			unread++
			continue
		}
		if sk, why := loadSkill(root, e.Name()); why == "" {
			out = append(out, sk)
		}
	}
	// Two skills may share a name: their files keep the order (and routing) deterministic.
	slices.SortFunc(out, func(a, b Skill) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	return out, unread
}

// loadSkill reads <root>/<dir>/SKILL.md, or says why it is not a skill, and how to fix that.
func loadSkill(root, dir string) (Skill, string) {
	file := filepath.Join(root, dir, "SKILL.md")
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return Skill{}, "it has no readable SKILL.md"
	}
	if !Inside(root, real) {
		return Skill{}, "its SKILL.md links out of the approved skill root: copy the file into the folder"
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return Skill{}, "its SKILL.md is not a regular file"
	}
	if st.Size() > maxSkillFile {
		return Skill{}, fmt.Sprintf("its SKILL.md has %d bytes, more than the %d a skill may have: move detail into files it references", st.Size(), maxSkillFile)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return Skill{}, "its SKILL.md cannot be read: check its permissions"
	}
	name, desc, ok := ParseFrontMatter(b)
	if !ok {
		return Skill{}, "its SKILL.md does not start with front matter holding a name: add ---, name: ..., description: ..., --- at its top"
	}
	return Skill{Name: name, Description: desc, File: file}, ""
}

// Built on first use: a package-level map or regexp is built by every process at start.
var stopWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "into": true, "from": true, "use": true}
})

func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 3 && !stopWords()[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Route ranks skills for a task: 3 points per task word in the skill's name, 1 per word in its
// description; ties go by name. Only skills with a positive score are kept, at most limit.
func Route(skills []Skill, task string, limit int) []Recommendation {
	taskWords := words(task)
	var recs []Recommendation
	for _, s := range skills {
		nameWords, descWords := words(s.Name), words(s.Description)
		var inName, inDesc []string
		for _, w := range taskWords {
			switch {
			case slices.Contains(nameWords, w):
				inName = append(inName, w)
			case slices.Contains(descWords, w):
				inDesc = append(inDesc, w)
			}
		}
		score := 3*len(inName) + len(inDesc)
		if score == 0 {
			continue
		}
		var why []string
		if len(inName) > 0 {
			why = append(why, fmt.Sprintf("name matches %s (3 each)", strings.Join(inName, ", ")))
		}
		if len(inDesc) > 0 {
			why = append(why, fmt.Sprintf("description matches %s (1 each)", strings.Join(inDesc, ", ")))
		}
		recs = append(recs, Recommendation{Skill: s, Score: score, Reason: strings.Join(why, "; ")})
	}
	slices.SortStableFunc(recs, func(a, b Recommendation) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		return strings.Compare(a.Skill.Name, b.Skill.Name)
	})
	if len(recs) > limit {
		recs = recs[:limit]
	}
	return recs
}

// ContextLine is how a recommendation enters a handoff's skillContext. It must pass that
// field's checks whatever the skill holds, or handoff.create would fail on a field its caller
// never wrote: the text is made valid UTF-8 without NUL, and the name and description are cut
// so that the line, with the file at its end, fits model.MaxSkillContextChars.
func (r Recommendation) ContextLine() string {
	line := "skill " + r.Skill.Name
	if r.Skill.Description != "" {
		line += ": " + r.Skill.Description
	}
	line, suffix := contextText(line), contextText(" ("+r.Skill.File+")")
	room := model.MaxSkillContextChars - utf8.RuneCountInString(suffix)
	if room < 40 { // a path too long to leave room for the name: cut the whole line instead
		line, suffix, room = line+suffix, "", model.MaxSkillContextChars
	}
	if rs := []rune(line); len(rs) > room {
		line = string(rs[:room-1]) + "…"
	}
	return line + suffix
}

// contextText is s as valid UTF-8 without NUL characters.
func contextText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
