package marker

import (
	"strings"
	"testing"
	"time"
)

// valid returns the valid blocks' prompts or first targets, in order, to compare outputs.
func validBodies(p Parsed) []string {
	var out []string
	for _, b := range p.Blocks {
		switch {
		case !b.Valid():
		case b.Create != nil:
			out = append(out, b.Create.Prompt)
		case b.Read != nil:
			out = append(out, b.Read.Targets[0])
		default:
			out = append(out, b.Target)
		}
	}
	return out
}

func wantValid(t *testing.T, out string, want ...string) Parsed {
	t.Helper()
	p := Parse(out)
	if got := strings.Join(validBodies(p), ","); got != strings.Join(want, ",") {
		t.Fatalf("valid blocks %q, want %q; blocks %+v", got, want, p.Blocks)
	}
	return p
}

// Scenario: S002-03 — a 4-backtick fence quoting a marker block (documentation) is text, and
// the real block after it runs: it used to be swallowed, neither run nor reported.
func TestFencesALongerFenceQuotesABlockAndTheNextOneRuns(t *testing.T) {
	t.Parallel()
	out := "How to create a thread:\n````markdown\n```task-create\n{\"prompt\":\"documentation\"}\n```\n````\n" +
		block("task-create", `{"prompt":"real"}`)
	p := wantValid(t, out, "real")
	if len(p.Blocks) != 1 {
		t.Fatalf("the quoted block was reported: %+v", p.Blocks)
	}
}

// Scenario: S002-03 — a tilde fence is a fence: a ``` block quoted inside it is text, and a
// ~~~task-create block runs.
func TestFencesTildeFences(t *testing.T) {
	t.Parallel()
	wantValid(t, "~~~\n"+block("task-create", `{"prompt":"quoted"}`)+"~~~\n"+block("task-poll", `{"task_id":"after"}`), "after")
	wantValid(t, "~~~task-create\n{\"prompt\":\"tilde\"}\n~~~\n", "tilde")
	// A backtick line does not close a tilde fence, nor a shorter run a longer fence.
	wantValid(t, "~~~~task-create\n{\"prompt\":\"a\"}\n```\n~~~\n~~~~~\n"+block("task-cancel", `{"task_id":"c"}`), "c")
	p := Parse("~~~~task-create\n{\"prompt\":\"a\"}\n```\n~~~\n~~~~~\n")
	wantSkip(t, p.Blocks[0], SkipInvalidJSON) // its body ran to the ~~~~~ line
}

// Scenario: S002-03 — a longer opening fence needs a closing fence at least as long, so a ```
// line inside it is body; the closing fence may be longer and have trailing spaces.
func TestFencesLongerClosingFence(t *testing.T) {
	t.Parallel()
	wantValid(t, "````task-create\n{\"prompt\":\"long\"}\n``````   \n", "long")
	p := Parse("````task-create\n{\"prompt\":\"x\"}\n```\n````\n")
	wantSkip(t, p.Blocks[0], SkipInvalidJSON)
	// A fence line with an info string never closes: the body runs on (and is no JSON).
	p = Parse("```task-create\n{\"prompt\":\"x\"}\n```json\n```\n")
	wantSkip(t, p.Blocks[0], SkipInvalidJSON)
}

// Scenario: S002-03 — up to 3 spaces of indentation is a fence; 4 or more (or a tab) is an
// indented code block: not run, but reported with the reason.
func TestFencesIndentation(t *testing.T) {
	t.Parallel()
	for _, ind := range []string{" ", "  ", "   "} {
		wantValid(t, ind+"```task-poll\n"+ind+"{\"task_id\":\"x\"}\n"+ind+"```\n", "x")
	}
	for _, ind := range []string{"    ", "\t", "  \t", "        "} {
		p := wantValid(t, ind+"```task-poll\n"+ind+"{\"task_id\":\"x\"}\n"+ind+"```\n")
		if len(p.Blocks) != 1 || p.Blocks[0].Skip != SkipIndented || p.Blocks[0].Tool != ToolPoll {
			t.Fatalf("indent %q: %+v", ind, p.Blocks)
		}
		if !strings.Contains(p.Blocks[0].Detail, "indented") {
			t.Fatalf("detail %q", p.Blocks[0].Detail)
		}
	}
	// Inside another fence an indented tool fence is quoted text: not even a near miss.
	if p := Parse("```text\n    ```task-poll\n```\n"); len(p.Blocks) != 0 {
		t.Fatalf("blocks %+v", p.Blocks)
	}
}

// Scenario: S002-03 — near misses of a tool's info string are skipped and reported, they use
// no slot of the limits, and their bodies are skipped like any fence's.
func TestFencesNearMissesAreReported(t *testing.T) {
	t.Parallel()
	cases := []struct{ info, code string }{
		{"Task-Create", SkipInfoCase}, {"TASK-POLL", SkipInfoCase}, {"Wait_Threads", SkipInfoCase},
		{"task-poll json", SkipInfoWords}, {"task-create  {", SkipInfoWords}, {"task-cancel\tnow", SkipInfoWords},
	}
	for _, c := range cases {
		p := Parse(block(c.info, `{"prompt":"p","task_id":"x","task_ids":["x"]}`))
		if len(p.Blocks) != 1 {
			t.Fatalf("%q: %+v", c.info, p.Blocks)
		}
		b := p.Blocks[0]
		if b.Skip != c.code || b.Tool == "" || b.Detail == "" {
			t.Fatalf("%q: skip %q tool %q detail %q", c.info, b.Skip, b.Tool, b.Detail)
		}
		if got := SkippedOutcomes(p); len(got) != 1 || got[0].Code != c.code {
			t.Fatalf("%q: outcomes %+v", c.info, got)
		}
	}
	// A near miss's body is skipped: a tool fence quoted in it is text.
	wantValid(t, "```Task-Create\n"+block("task-create", `{"prompt":"inner"}`)+block("task-create", `{"prompt":"outer"}`), "outer")
	// Near misses use no slot: five real creates after five near misses all run.
	var out strings.Builder
	for i := range 5 {
		out.WriteString(block("TASK-CREATE", `{"prompt":"n"}`))
		out.WriteString(block("task-create", `{"prompt":"p`+string(rune('0'+i))+`"}`))
	}
	if n := len(Plan(Parse(out.String()))); n != MaxCreates {
		t.Fatalf("%d creates planned", n)
	}
	// Other languages are no near misses.
	if p := Parse(block("json", "{}") + block("tasks", "{}") + block("python task-create", "")); len(p.Blocks) != 0 {
		t.Fatalf("blocks %+v", p.Blocks)
	}
}

// Scenario: S002-03 — CRLF line ends and trailing spaces on both fence lines keep working.
func TestFencesCRLFAndTrailingSpaces(t *testing.T) {
	t.Parallel()
	wantValid(t, "```task-poll   \r\n{\"task_id\":\"a\"}\r\n```  \t\r\n~~~ task-cancel \r\n{\"to\":\"b\"}\r\n~~~\r\n", "a", "b")
}

// An inline code span of three backticks is no fence.
func TestFencesInlineCodeIsNoFence(t *testing.T) {
	t.Parallel()
	wantValid(t, "```task-create` is a tool```\n"+block("task-cancel", `{"to":"c"}`), "c")
}

// Scenario: S002-03 — two identical blocks in one reply run once; the second is reported
// as a duplicate. White space inside the JSON does not make blocks different; another
// prompt, tool or key does.
func TestS002_03_IdenticalBlocksRunOnce(t *testing.T) {
	t.Parallel()
	out := block("task-create", `{"prompt":"same","name":"n"}`) + block("task-create", `{ "prompt": "same",  "name": "n" }`) +
		block("task-create", `{"prompt":"other","name":"n"}`) + block("task-read", `{"task_id":"t"}`) + block("task-poll", `{"task_id":"t"}`) +
		block("task_cancel", `{"to":"t"}`) + block("task-cancel", `{"task_id":"t"}`)
	p := Parse(out)
	var codes []string
	for _, b := range p.Blocks {
		codes = append(codes, b.Skip)
	}
	if got := strings.Join(codes, ","); got != ",duplicate,,,duplicate,," {
		t.Fatalf("skips %q", got)
	}
	if d := p.Blocks[1].Detail; !strings.Contains(d, "identical to block 1") {
		t.Fatalf("detail %q", d)
	}
	if n := len(Plan(p)); n != 5 {
		t.Fatalf("%d planned", n)
	}
}

// Scenario: S002-04 — wait_seconds is one read after that long: a Once read whose timeout
// and interval are wait_seconds; interval_seconds and timeout_seconds do not apply.
func TestS002_04_WaitSecondsIsOnce(t *testing.T) {
	t.Parallel()
	b := parseOne(t, "task-read", `{"task_id":"`+idA+`","wait_seconds":20,"timeout_seconds":1,"interval_seconds":1,"chars":300}`)
	if r := b.Read; !r.Once || r.Timeout != 20*time.Second || r.Interval != 20*time.Second || r.Chars != 300 {
		t.Fatalf("read %+v", r)
	}
	if b := parseOne(t, "task-poll", `{"task_id":"`+idA+`","wait_seconds":0}`); b.Read.Once || b.Read.Timeout != 0 {
		t.Fatalf("wait_seconds 0 is one immediate snapshot: %+v", b.Read)
	}
	if b := parseOne(t, "task-poll", `{"task_id":"`+idA+`","timeout_seconds":20}`); b.Read.Once {
		t.Fatalf("a poll with a timeout is no once read")
	}
}

// Scenario: S002-03 — the manual's forms: "executor": "harness NAME" and effort ultra are
// skipped with a reason that says what works instead.
func TestS002_03_ExecutorAndEffortSkipsSayWhatWorks(t *testing.T) {
	t.Parallel()
	b := parseOne(t, "task-create", `{"prompt":"p","executor":"harness shell"}`)
	if b.Skip != SkipExecutorInvalid || !strings.Contains(b.Detail, `"harness": "shell"`) {
		t.Fatalf("executor: %s %s", b.Skip, b.Detail)
	}
	b = parseOne(t, "task-create", `{"prompt":"p","effort":"ultra"}`)
	if b.Skip != SkipEffortInvalid || !strings.Contains(b.Detail, "delegate start --thinking") {
		t.Fatalf("effort: %s %s", b.Skip, b.Detail)
	}
}

// longestRun is the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// FuzzFences checks the fence scanner's CommonMark properties on any output: quoted inside a
// fence longer than any backtick run in it, nothing is a block; CRLF line ends change nothing.
func FuzzFences(f *testing.F) {
	f.Add(block("task-create", `{"prompt":"p"}`))
	f.Add("````markdown\n```task-create\n{\"prompt\":\"d\"}\n```\n````\n" + block("task-poll", `{"task_id":"x"}`))
	f.Add("~~~\n```task-cancel\n{\"to\":\"x\"}\n```\n~~~\n   ~~~~task-retry  \n{\"to\":\"y\"}\n~~~~~\n")
	f.Add("    ```task-poll\n```Task-Create\n{}\n```\n```task-poll json\n{}\n```\n\t```wait-threads\n")
	f.Add("```task-create` inline```\n``\n~~\n" + block("task-create", `{"prompt":"a"}`) + block("task-create", `{ "prompt" : "a" }`))
	f.Fuzz(func(t *testing.T, out string) {
		if len(out) > 1<<16 {
			return
		}
		fence := strings.Repeat("`", max(3, longestRun(out, '`')+1))
		if p := Parse(fence + "text\n" + out + "\n" + fence + "\n"); len(p.Blocks) != 0 || p.DroppedFences != 0 {
			t.Fatalf("a block inside a fence: %+v", p.Blocks)
		}
		if strings.Contains(out, "\r") {
			return
		}
		a, b := Parse(out), Parse(strings.ReplaceAll(out, "\n", "\r\n"))
		if len(a.Blocks) != len(b.Blocks) {
			t.Fatalf("CRLF changed the blocks: %d vs %d", len(a.Blocks), len(b.Blocks))
		}
		for i := range a.Blocks {
			if a.Blocks[i].Skip != b.Blocks[i].Skip || a.Blocks[i].Tool != b.Blocks[i].Tool {
				t.Fatalf("CRLF changed block %d: %+v vs %+v", i, a.Blocks[i], b.Blocks[i])
			}
		}
	})
}
