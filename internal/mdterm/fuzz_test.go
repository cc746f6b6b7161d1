package mdterm

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

var fuzzSeeds = []string{
	"# Heading\n\nA paragraph with **bold**, *emphasis*, ~~strike~~ and `code`.",
	"- one\n- two\n  - nested [link](https://example.com/a/very/long/path/that/does/not/fit)\n- [x] task",
	"1. first\n2. second\n\n> quote\n> > nested quote with a long line that has to wrap somewhere",
	"```go\nfunc main() {\n\tfmt.Println(\"a very long line of code that is wider than any narrow pane\")\n}\n```",
	"```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n```",
	"```python\n'''doc\nstring'''\ndef f(x): return x # c\n```",
	"```sh\necho \"$HOME\" # comment\n```\n\n```json\n{\"a\": [1, true, null]}\n```\n\n```yaml\nkey-name: 'v' # c\n```",
	"| a | b | c |\n|:--|:-:|--:|\n| 1 | two words | `x\\|y` |\n| 中文 | wide | cells |",
	"| a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 |",
	"中文段落：解析器在文件没有结尾换行时会丢掉最后一行，这是一个需要按宽度换行的很长的句子。",
	"emoji 👩‍👩‍👧‍👦 and combining é and wide ＡＢＣ fullwidth",
	"supercalifragilisticexpialidocioussupercalifragilisticexpialidocious word",
	"<div>\n<b>raw</b>\n</div>\n\ntext <span>inline</span>",
	"***\n\n---\n\n___",
	"\x1b[31mred\x1b[0m \x07 bell\r\n\ttab",
	"- \n-\n1.\n>\n```\n",
	"    indented code line that is quite long and should be cut not wrapped by words",
	"######## not a heading\n\n# ## mixed ###",
	"[ref]\n\n[ref]: https://example.com \"title\"",
	"*a **b** c* ~~**d**~~ `` code with ` backtick ``",
}

// FuzzRenderMarkdown: any input renders without panic; at widths 20, 40 and 80 every line —
// prose wrapped, code cut — fits the width before any final cut, and the plain look never
// writes an escape character.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, width := range []int{20, 40, 80} {
			for _, lk := range []string{"dark", "notty"} {
				for _, l := range renderLines(src, width, lk, termenv.ANSI256) {
					if w := textWidth(l); w > width {
						t.Fatalf("%s at %d: line %q is %d cells", lk, width, l, w)
					}
					if lk == "notty" && strings.ContainsRune(l, '\x1b') {
						t.Fatalf("plain look wrote an escape: %q", l)
					}
				}
			}
		}
	})
}

func TestNoLineExceedsTheWidthAtAnyWidth(t *testing.T) {
	for _, src := range fuzzSeeds {
		for width := 2; width <= 90; width++ { // a wide character cannot fit one cell
			for _, l := range renderLines(src, width, "dark", termenv.ANSI256) {
				if w := textWidth(l); w > width {
					t.Fatalf("at %d: %q is %d cells (source %q)", width, l, w, src)
				}
			}
		}
	}
}
