package handoff

import (
	"regexp"
	"strings"
	"sync"
)

// SkillReference is a file a SKILL.md points at, as written. Linked references (markdown
// links and link definitions) are meant as files: a missing one is reported. Code spans that
// look like paths are only candidates: they count when such a file exists.
type SkillReference struct {
	Path   string
	Linked bool
}

var (
	inlineLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)`) })
	linkDef    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]{0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?`) })
	codeSpan   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`\\s]+)`") })
)

// maxSkillReferences bounds how many references one SKILL.md yields, whatever it holds.
const maxSkillReferences = 200

// ParseSkillReferences lists the local files a SKILL.md references, in the order they first
// appear, each once: URLs, mail links and in-page anchors are not files; a fragment or query
// after a path is dropped.
func ParseSkillReferences(md string) []SkillReference {
	type hit struct {
		at  int
		ref SkillReference
	}
	var hits []hit
	collect := func(re *regexp.Regexp, linked bool) {
		for _, m := range re.FindAllStringSubmatchIndex(md, -1) {
			if p, ok := localPath(md[m[2]:m[3]], linked); ok {
				hits = append(hits, hit{at: m[2], ref: SkillReference{Path: p, Linked: linked}})
			}
		}
	}
	collect(inlineLink(), true)
	collect(linkDef(), true)
	collect(codeSpan(), false)
	// Stable order of appearance; a path seen as a link stays a link.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].at < hits[j-1].at; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	var out []SkillReference
	index := map[string]int{}
	for _, h := range hits {
		if i, seen := index[h.ref.Path]; seen {
			out[i].Linked = out[i].Linked || h.ref.Linked
			continue
		}
		if len(out) >= maxSkillReferences {
			break
		}
		index[h.ref.Path] = len(out)
		out = append(out, h.ref)
	}
	return out
}

// localPath cleans a link target down to a file path, or says it is not one. A code span
// must look like a path (a slash, or a dot before an extension) to be a candidate.
func localPath(target string, linked bool) (string, bool) {
	if i := strings.IndexAny(target, "#?"); i >= 0 {
		target = target[:i]
	}
	if target == "" || strings.Contains(target, "://") || strings.HasPrefix(strings.ToLower(target), "mailto:") {
		return "", false
	}
	if !linked {
		if !strings.Contains(target, "/") && !strings.Contains(strings.TrimPrefix(target, "."), ".") {
			return "", false
		}
		if strings.ContainsAny(target, "()[]{}<>=,;$*|\"'") {
			return "", false
		}
	}
	return target, true
}
