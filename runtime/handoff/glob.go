package handoff

import (
	"path"
	"strings"
)

// Globs match slash-separated paths relative to a project root. A `**` segment matches any
// number of segments (none included); other segments follow path.Match. A pattern without a
// slash matches a name at any depth, as in .gitignore. Matching ignores case everywhere: on a
// case-insensitive filesystem .ENV is .env, and a deny list is safer too wide than too narrow.
type Globs []string

// Match returns the first pattern that matches rel, or "".
func (g Globs) Match(rel string) string {
	rel = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(strings.ToLower(rel), "\\", "/")), "/")
	segs := strings.Split(rel, "/")
	for _, p := range g {
		pat := strings.Trim(strings.ToLower(p), "/")
		if !strings.Contains(pat, "/") {
			pat = "**/" + pat
		}
		if matchSegs(strings.Split(pat, "/"), segs) {
			return p
		}
	}
	return ""
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(segs); i++ {
				if matchSegs(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
