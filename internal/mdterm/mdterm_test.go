package mdterm

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// plain renders in the plain look, where what the renderer decides is readable as text.
func plain(src string, width int) string {
	return strings.Join(Render(src, width, "notty", termenv.Ascii), "\n")
}

func TestConstructsInThePlainLook(t *testing.T) {
	cases := []struct {
		name, src string
		width     int
		want      string
	}{
		{"headings", "# One\n\n## Two\n\n###### Six", 40, "# One\n\n## Two\n\n###### Six"},
		{"setext heading", "Title\n=====", 40, "# Title"},
		{"paragraph wraps at the width", "one two three four five six seven eight nine ten", 20,
			"one two three four\nfive six seven eight\nnine ten"},
		{"soft line breaks are spaces", "one\ntwo\nthree", 40, "one two three"},
		{"hard line break", "one  \ntwo", 40, "one\ntwo"},
		{"emphasis strong strike", "*a* **b** ~~c~~ _d_", 40, "*a* **b** ~~c~~ *d*"},
		{"inline code", "run `go test ./...` now", 40, "run `go test ./...` now"},
		{"escapes and entities", `\*not\* &amp; &#35;`, 40, "*not* & #"},
		{"fenced code keeps its lines", "```\nfunc  a() {\n\treturn\n}\n```", 40,
			"  func  a() {\n      return\n  }"},
		{"code wider than the pane continues on the next line", "```go\nabcdefghijklmnopqrstuvwxyz\n```", 12,
			"  abcdefghij\n  klmnopqrst\n  uvwxyz"},
		{"indented code", "text\n\n    indented  code\n", 40, "text\n\n  indented  code"},
		{"bullets", "- one\n- two", 40, "• one\n• two"},
		{"ordered from its start", "3. three\n4. four", 40, "3. three\n4. four"},
		{"ordered marks align past nine", "9. nine\n10. ten", 40, "9.  nine\n10. ten"},
		{"nested lists hang under the text", "1. top\n   - inner\n     - deepest\n2. next", 40,
			"1. top\n   • inner\n     • deepest\n2. next"},
		{"long item hangs", "- a b c d e f g h i j k l", 10, "• a b c d\n  e f g h\n  i j k l"},
		{"loose list keeps its blank lines", "- one\n\n- two", 40, "• one\n\n• two"},
		{"task list", "- [x] done\n- [ ] todo\n- plain", 40, "[x] done\n[ ] todo\n• plain"},
		{"block quote", "> quoted text that wraps", 14, "| quoted text\n| that wraps"},
		{"nested quote", "> a\n>> b", 40, "| a\n|\n| | b"},
		{"link shows text and address", "see [the docs](https://x.dev/d)", 40, "see the docs https://x.dev/d"},
		{"autolink once", "<https://x.dev>", 40, "https://x.dev"},
		{"link whose text is its address once", "[https://x.dev](https://x.dev)", 40, "https://x.dev"},
		{"image", "![logo](a.png)", 40, "Image: logo → a.png"},
		{"thematic break", "a\n\n---\n\nb", 40, "a\n\n--------\n\nb"},
		{"raw html inline is text", "a <b>bold</b> c", 40, "a <b>bold</b> c"},
		{"raw html block is text", "<div>\n<script>x()</script>\n</div>", 40, "<div>\n<script>x()</script>\n</div>"},
		{"table fits", "| a | bb |\n|---|---:|\n| 1 | 2 |", 40, "a | bb\n--|---\n1 |  2"},
		{"table centre", "| name |\n|:----:|\n| x |", 40, "name\n----\n x"},
		{"table with inline code and escaped pipe", "| c |\n|---|\n| `a\\|b` |", 40, "c\n-----\n`a|b`"},
		{"table too narrow stacks its cells", "| alpha | beta | gamma | delta |\n|---|---|---|---|\n| 1 | 2 | 3 | 4 |", 14,
			"alpha: 1\nbeta: 2\ngamma: 3\ndelta: 4"},
		{"control characters never reach the terminal", "a\x1b[31mred", 40, "a\uFFFD[31mred"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := plain(c.src, c.width); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestTableShrinksItsWidestColumnToFit(t *testing.T) {
	src := "| key | description |\n|---|---|\n| a | a long description that cannot fit in a narrow pane at all |"
	got := Render(src, 30, "notty", termenv.Ascii)
	want := []string{
		"key | description",
		"----|-----------------------",
		"a   | a long description",
		"    | that cannot fit in a",
		"    | narrow pane at all",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s", strings.Join(got, "\n"))
	}
}

func TestCJKWrapsBetweenCharactersAndCountsTwoCells(t *testing.T) {
	src := "中文段落：解析器在文件没有结尾换行时会丢掉最后一行。"
	got := Render(src, 20, "notty", termenv.Ascii)
	want := []string{"中文段落：解析器在文", "件没有结尾换行时会丢", "掉最后一行。"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q", got)
	}
	mixed := Render("the word 漢字かな交じり文 fits", 12, "notty", termenv.Ascii)
	for _, l := range mixed {
		if textWidth(l) > 12 {
			t.Fatalf("line %q is %d cells", l, textWidth(l))
		}
	}
	if strings.Join(mixed, "") != "the word 漢字かな交じり文 fits" {
		t.Fatalf("text lost or changed: %q", mixed)
	}
}

func TestDarkLookEmitsColourAndPlainLookNone(t *testing.T) {
	src := "# T\n\n**b** `c` [l](https://x.dev)\n\n```go\nfunc main() {}\n```\n\n| a |\n|---|\n| b |"
	dark := strings.Join(Render(src, 40, "dark", termenv.ANSI256), "\n")
	for _, seq := range []string{"\x1b[1;38;5;228;48;5;63m", "\x1b[38;5;203;48;5;236m", "\x1b[4;38;5;30m", "\x1b[0m"} {
		if !strings.Contains(dark, seq) {
			t.Errorf("dark look lacks %q:\n%q", seq, dark)
		}
	}
	light := strings.Join(Render(src, 40, "light", termenv.ANSI256), "\n")
	if !strings.Contains(light, "48;5;254m") || light == dark {
		t.Errorf("light look is not its own: %q", light)
	}
	for name, out := range map[string][]string{
		"notty":            Render(src, 40, "notty", termenv.ANSI256),
		"dark without tty": Render(src, 40, "dark", termenv.Ascii),
	} {
		if s := strings.Join(out, "\n"); strings.Contains(s, "\x1b") {
			t.Errorf("%s emits an escape: %q", name, s)
		}
	}
}

func TestTrueColourProfileGetsRGB(t *testing.T) {
	out := strings.Join(Render("```go\nfunc f() {}\n```", 40, "dark", termenv.TrueColor), "")
	if !strings.Contains(out, "38;2;") {
		t.Fatalf("no 24-bit colour in %q", out)
	}
	basic := strings.Join(Render("```go\nfunc f() {}\n```", 40, "dark", termenv.ANSI), "")
	if strings.Contains(basic, "38;2;") || strings.Contains(basic, "38;5;") || !strings.Contains(basic, "\x1b[") {
		t.Fatalf("a 16-colour terminal got other colours: %q", basic)
	}
}

func TestRendersConcurrently(t *testing.T) {
	done := make(chan []string)
	for range 8 {
		go func() { done <- Render("# a\n\n- b `c`\n\n| x |\n|---|\n| y |", 30, "dark", termenv.ANSI256) }()
	}
	first := <-done
	for range 7 {
		if got := <-done; strings.Join(got, "\n") != strings.Join(first, "\n") {
			t.Fatalf("renders differ: %q vs %q", got, first)
		}
	}
}
