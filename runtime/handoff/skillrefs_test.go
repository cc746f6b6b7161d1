package handoff

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSkillReferences(t *testing.T) {
	t.Parallel()
	md := "See [guide](references/guide.md#intro \"Guide\") and <https://x.example>, [web](https://example.com/a.md),\n" +
		"[anchor](#top), [mail](mailto:a@b.c), `scripts/run.sh`, `make test`, `config.toml`, `a=b/c`.\n" +
		"[def]: ./notes/def.txt\n`references/guide.md` again, [up](../out.md)."
	got := ParseSkillReferences(md)
	want := []SkillReference{{"references/guide.md", true}, {"scripts/run.sh", false}, {"config.toml", false},
		{"./notes/def.txt", true}, {"../out.md", true}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func FuzzParseSkillReferences(f *testing.F) {
	f.Add("[a](b.md) `c/d` [e]: f")
	f.Add("[x](<y z.md>) [](#) `` ` ``")
	f.Add(strings.Repeat("[a](b) ", 300))
	f.Fuzz(func(t *testing.T, md string) {
		refs := ParseSkillReferences(md)
		if len(refs) > maxSkillReferences {
			t.Fatalf("%d references", len(refs))
		}
		seen := map[string]bool{}
		for _, r := range refs {
			if r.Path == "" || seen[r.Path] || strings.Contains(r.Path, "://") {
				t.Fatalf("bad reference %+v in %+v", r, refs)
			}
			seen[r.Path] = true
		}
	})
}
