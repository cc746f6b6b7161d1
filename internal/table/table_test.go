package table

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/model"
)

var now = time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)

func sample() Table {
	return Table{
		Columns: []Column{{Name: "ID"}, {Name: "Status"}, {Name: "Updated"}, {Name: "Cwd", Fit: true}, {Name: "Title", Fit: true}},
		Rows: [][]Cell{
			{Text("b1"), Styled("idle", Good), At(now.Add(-3 * time.Minute)), Text("/home/me/src/project"), Text("fix the flaky login test in the auth service")},
			{Text("a2"), Styled("error", Bad), At(now.Add(-2 * time.Hour)), Text(""), Text("修复 登录")},
			{Text("c3"), Styled("running", Busy), At(time.Time{}), Text("/tmp"), Text("short")},
		},
	}
}

func render(t *testing.T, tb Table, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := tb.Render(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRenderAlignsColumnsWithRelativeTimesAndNoColourByDefault(t *testing.T) {
	got := render(t, sample(), Options{Now: now})
	want := "" +
		"ID  STATUS   UPDATED    CWD                   TITLE\n" +
		"b1  idle     3 min ago  /home/me/src/project  fix the flaky login test in the auth service\n" +
		"a2  error    2 h ago    -                     修复 登录\n" +
		"c3  running  -          /tmp                  short\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenderCutsTheWidestFitColumnFirstToTheWidth(t *testing.T) {
	for _, width := range []int{80, 60, 50, 42} {
		got := render(t, sample(), Options{Now: now, Width: width})
		for _, line := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
			if w := ansi.StringWidth(line); w > width {
				t.Errorf("width %d: line of %d columns: %q", width, w, line)
			}
		}
		if !strings.Contains(got, "b1  idle") || !strings.Contains(got, "3 min ago") {
			t.Errorf("width %d: ids, statuses and times are never cut:\n%s", width, got)
		}
	}
	got := render(t, sample(), Options{Now: now, Width: 80})
	// The title is the widest column: it is cut, the cwd is not.
	if !strings.Contains(got, "/home/me/src/project") || !strings.Contains(got, "…") || strings.Contains(got, "auth service") {
		t.Fatalf("width 80:\n%s", got)
	}
	// Wide enough: nothing is cut.
	if got := render(t, sample(), Options{Now: now, Width: 200}); strings.Contains(got, "…") {
		t.Fatalf("width 200 cut something:\n%s", got)
	}
}

// Two long cut columns share what is left rather than one going down to its narrowest.
func TestCutColumnsShareTheRoom(t *testing.T) {
	tb := Table{Columns: []Column{{Name: "A", Fit: true}, {Name: "B", Fit: true}},
		Rows: [][]Cell{{Text(strings.Repeat("a", 50)), Text(strings.Repeat("b", 80))}}}
	got := strings.Split(render(t, tb, Options{Width: 62}), "\n")[1]
	if strings.Count(got, "a") != 29 || strings.Count(got, "b") != 29 {
		t.Fatalf("got %q", got)
	}
}

func TestRenderNeverCutsBelowTheHeaderAndKeepsCJKAligned(t *testing.T) {
	got := render(t, sample(), Options{Now: now, Width: 10})
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "ID  STATUS   UPDATED    CWD       TITLE") {
		t.Fatalf("header cut:\n%s", got)
	}
	col := strings.Index(lines[0], "TITLE")
	for _, l := range lines[1:] {
		// The cut cells keep every following column where the header puts it.
		if w := ansi.StringWidth(l); w > col+minFit {
			t.Errorf("line wider than its columns: %q (%d)", l, w)
		}
	}
}

func TestCellsAreOneLineWithoutEscapes(t *testing.T) {
	tb := Table{Columns: []Column{{Name: "T"}}, Rows: [][]Cell{{Text("a\x1b[2Jb\nc\td\x07")}}}
	if got := render(t, tb, Options{}); got != "T\nab c d \n" {
		t.Fatalf("got %q", got)
	}
}

func TestColumnsThatCannotFitAreLeftOutLowestDropFirst(t *testing.T) {
	tb := sample()
	tb.Columns[1].Drop, tb.Columns[3].Drop = 2, 1 // status, then cwd
	got := render(t, tb, Options{Now: now, Width: 40})
	if strings.Contains(got, "CWD") || !strings.Contains(got, "STATUS") {
		t.Fatalf("width 40: the cwd goes first:\n%s", got)
	}
	for _, l := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("line of %d columns: %q", ansi.StringWidth(l), l)
		}
	}
	got = render(t, tb, Options{Now: now, Width: 30})
	if strings.Contains(got, "STATUS") || !strings.HasPrefix(got, "ID  UPDATED    TITLE") {
		t.Fatalf("width 30:\n%s", got)
	}
	if got := render(t, tb, Options{Now: now}); !strings.Contains(got, "CWD") {
		t.Fatalf("full width dropped a column:\n%s", got)
	}
}

func TestAnEmptyTableSaysSo(t *testing.T) {
	tb := Table{Columns: []Column{{Name: "Task"}}, Empty: "no tasks"}
	if got := render(t, tb, Options{Indent: "  "}); got != "  no tasks\n" {
		t.Fatalf("got %q", got)
	}
}

func TestColourOnlyWhenAsked(t *testing.T) {
	got := render(t, sample(), Options{Now: now, Color: true})
	if !strings.Contains(got, "\x1b[31merror\x1b[0m") || !strings.Contains(got, "\x1b[1mID\x1b[0m") {
		t.Fatalf("colour missing: %q", got)
	}
	// Colour codes take no columns: the table is as wide as without them.
	plain := render(t, sample(), Options{Now: now})
	if ansi.Strip(got) != plain {
		t.Fatalf("coloured table differs once stripped:\n%s\n%s", ansi.Strip(got), plain)
	}
}

func TestSortByTheNamedColumn(t *testing.T) {
	tb := sample()
	if err := tb.Sort("id"); err != nil {
		t.Fatal(err)
	}
	if ids := firstColumn(tb); ids != "a2 b1 c3" {
		t.Fatalf("sort id: %s", ids)
	}
	if err := tb.Sort("UPDATED"); err != nil {
		t.Fatal(err)
	}
	if ids := firstColumn(tb); ids != "b1 a2 c3" { // newest first, the unknown time last
		t.Fatalf("sort updated: %s", ids)
	}
	err := tb.Sort("size")
	if !model.IsCode(err, model.CodeInvalidArgument) || !strings.Contains(model.AsError(err).Hint, "id, status, updated, cwd, title") {
		t.Fatalf("unknown column: %v", err)
	}
	num := Table{Columns: []Column{{Name: "N"}}, Rows: [][]Cell{{Int(10)}, {Int(9)}, {Int(100)}}}
	_ = num.Sort("n")
	if got := firstColumn(num); got != "9 10 100" {
		t.Fatalf("numbers sort as numbers: %s", got)
	}
}

func firstColumn(tb Table) string {
	var out []string
	for _, r := range tb.Rows {
		out = append(out, r[0].Text)
	}
	return strings.Join(out, " ")
}

func TestCountAndAgo(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(0, "session"), "0 sessions"},
		{Count(1, "session"), "1 session"},
		{Count(2, "session"), "2 sessions"},
		{Count(1, "match", "matches"), "1 match"},
		{Count(3, "match", "matches"), "3 matches"},
		{Ago(now.Add(-20*time.Second), now), "just now"},
		{Ago(now.Add(-3*time.Minute), now), "3 min ago"},
		{Ago(now.Add(-5*time.Hour), now), "5 h ago"},
		{Ago(now.Add(-20*time.Hour), now), "yesterday"},
		{Ago(now.Add(-49*time.Hour), now), "2 days ago"},
		{Ago(now.Add(-24*time.Hour*45), now), "2026-10-17"},
		{Ago(now.Add(10*time.Second), now), "just now"},
		{Ago(now.Add(3*time.Minute), now), "in 3 min"},
		{Ago(time.Time{}, now), "-"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestDetectKeepsPipesFullWidthAndColourless(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if o := Detect(w, get, false, now); o.Width != 0 || o.Color {
		t.Fatalf("pipe: %+v", o)
	}
	env["COLUMNS"] = "100"
	if o := Detect(&bytes.Buffer{}, get, false, now); o.Width != 100 || o.Color {
		t.Fatalf("COLUMNS=100: %+v", o)
	}
}

// FuzzRenderFitsTheWidth: whatever the cells, every line fits the width unless the columns
// that may not be cut alone are wider, and the header is never cut.
func FuzzRenderFitsTheWidth(f *testing.F) {
	f.Add("abc", "修复 登录 很长的标题", "/a/b/c", 40)
	f.Add("", "\x1b[31mred\x1b[0m", "tab\there\nnewline", 12)
	f.Add("0123456789abcdef", "a", "", 1)
	f.Fuzz(func(t *testing.T, id, title, cwd string, width int) {
		if width < 0 || width > 500 {
			return
		}
		tb := Table{Columns: []Column{{Name: "ID"}, {Name: "Cwd", Fit: true}, {Name: "Title", Fit: true}},
			Rows: [][]Cell{{Text(id), Text(cwd), Text(title)}, {Text(title), Text(id), Text(cwd)}}}
		var b bytes.Buffer
		if err := tb.Render(&b, Options{Width: width}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") {
			t.Fatalf("lines: %q", lines)
		}
		fixed := max(2, ansi.StringWidth(cellText(Text(id), now)), ansi.StringWidth(cellText(Text(title), now)))
		limit := max(width, fixed+2*(columnGap+minFit))
		for _, l := range lines {
			if width > 0 && ansi.StringWidth(l) > limit {
				t.Fatalf("line of %d columns, width %d: %q", ansi.StringWidth(l), width, l)
			}
		}
	})
}
