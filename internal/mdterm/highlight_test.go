package mdterm

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// classes is each token of code in lang with its class; a text seen twice keeps a class
// other than plain.
func classes(code, lang string) map[string]tokenClass {
	toks, _ := tokensOf(code, lang)
	out := map[string]tokenClass{}
	for _, t := range toks {
		for _, text := range strings.Split(t.text, "\n") {
			if c, seen := out[text]; text != "" && (!seen || c == tokPlain) {
				out[text] = t.class
			}
		}
	}
	return out
}

func TestHighlighterClassesByLanguage(t *testing.T) {
	cases := []struct {
		lang, code string
		want       map[string]tokenClass
	}{
		{"go", "func f() string { return \"s\" + `raw\nline` } // done\n/* block\ncomment */ x := 0x1F",
			map[string]tokenClass{"func": tokKeyword, "string": tokType, "return": tokKeyword, `"s"`: tokString,
				"`raw": tokString, "line`": tokString, "// done": tokComment, "/* block": tokComment, "comment */": tokComment, "0x1F": tokNumber, "f": tokFunction}},
		{"python", "def f(x):\n    '''doc'''\n    return None  # note", map[string]tokenClass{
			"def": tokKeyword, "'''doc'''": tokString, "None": tokLiteral, "# note": tokComment}},
		{"ts", "const x: number = 42; // c", map[string]tokenClass{"const": tokKeyword, "number": tokType, "42": tokNumber, "// c": tokComment}},
		{"bash", "if [ -f a#b ]; then echo \"$x\"; fi # c", map[string]tokenClass{
			"if": tokKeyword, "then": tokKeyword, "\"$x\"": tokString, "# c": tokComment}},
		{"json", `{"a": true, "n": 1.5}`, map[string]tokenClass{`"a"`: tokString, "true": tokLiteral, "1.5": tokNumber}},
		{"yaml", "run-name: 'x' # c\nok: yes", map[string]tokenClass{"run-name": tokKeyword, "'x'": tokString, "# c": tokComment, "yes": tokLiteral}},
		{"rust", "fn main() { let v: Vec<u8> = Vec::new(); }", map[string]tokenClass{"fn": tokKeyword, "let": tokKeyword, "u8": tokType}},
		{"diff", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n same", map[string]tokenClass{
			"--- a/f": tokHeader, "@@ -1 +1 @@": tokHeader, "-old": tokDeleted, "+new": tokInserted, " same": tokPlain}},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			got := classes(c.code, c.lang)
			for text, want := range c.want {
				if got[text] != want {
					t.Errorf("%q: class %d, want %d (all: %v)", text, got[text], want, got)
				}
			}
		})
	}
}

func TestUnknownLanguageIsOneColourAndAWordInsideAnIdentifierIsNotAKeyword(t *testing.T) {
	r := &renderer{lk: darkLook(), p: newPainter(termenv.ANSI256, false)}
	for _, l := range r.highlight("func if return", "cobol") {
		for _, f := range l {
			if f.st != r.lk.codeBlock {
				t.Fatalf("unknown language got %v for %q", f.st, f.text)
			}
		}
	}
	got := classes("funcs iffy x_return", "go")
	for _, w := range []string{"func", "if", "return"} {
		if got[w] == tokKeyword {
			t.Fatalf("%q found inside an identifier: %v", w, got)
		}
	}
}
