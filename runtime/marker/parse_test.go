package marker

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const idA = "019a0000-0000-7000-8000-00000000000a"
const idB = "019a0000-0000-7000-8000-00000000000b"

func block(info, body string) string { return "```" + info + "\n" + body + "\n```\n" }

func parseOne(t *testing.T, info, body string) Block {
	t.Helper()
	p := Parse("some text\n" + block(info, body) + "after\n")
	if len(p.Blocks) != 1 {
		t.Fatalf("want 1 block, got %d: %+v", len(p.Blocks), p.Blocks)
	}
	return p.Blocks[0]
}

func wantSkip(t *testing.T, b Block, code string) {
	t.Helper()
	if b.Skip != code {
		t.Fatalf("skip = %q (%s), want %q", b.Skip, b.Detail, code)
	}
}

// Scenario: S002-03
func TestS002_03_CreateValid(t *testing.T) {
	t.Parallel()
	b := parseOne(t, "task-create", `{"name":"test-x","prompt":"do it","model":null,"effort":"xhigh","executor":"docker","harness":"shell"}`)
	if !b.Valid() || b.Create == nil {
		t.Fatalf("block skipped: %s %s", b.Skip, b.Detail)
	}
	c := b.Create
	if c.Prompt != "do it" || c.Name != "test-x" || c.Effort != "xhigh" || c.Executor != "docker" || c.Harness != "shell" || c.Model != "" {
		t.Fatalf("create = %+v", c)
	}
}

// Scenario: S002-03
func TestS002_03_CreateModelNotWhitelisted(t *testing.T) {
	t.Parallel()
	b := parseOne(t, "task-create", `{"prompt":"p","model":"any-model-at-all-9"}`)
	if !b.Valid() || b.Create.Model != "any-model-at-all-9" {
		t.Fatalf("model refused: %+v", b)
	}
}

// Scenario: S002-03
func TestS002_03_CreateRejections(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxPromptChars+1)
	cases := []struct{ name, body, code string }{
		{"invalid json", `{"prompt": "x"`, SkipInvalidJSON},
		{"not an object", `["prompt"]`, SkipInvalidJSON},
		{"null", `null`, SkipInvalidJSON},
		{"two objects", `{"prompt":"a"} {"prompt":"b"}`, SkipInvalidJSON},
		{"prompt missing", `{"name":"n"}`, SkipPromptMissing},
		{"prompt null", `{"prompt":null}`, SkipPromptMissing},
		{"prompt empty", `{"prompt":""}`, SkipPromptMissing},
		{"prompt not string", `{"prompt":5}`, SkipInvalidField},
		{"prompt too long", `{"prompt":"` + long + `"}`, SkipPromptTooLong},
		{"name empty", `{"prompt":"p","name":""}`, SkipNameInvalid},
		{"name too long", `{"prompt":"p","name":"` + strings.Repeat("n", MaxNameChars+1) + `"}`, SkipNameInvalid},
		{"effort invalid", `{"prompt":"p","effort":"extreme"}`, SkipEffortInvalid},
		{"effort not string", `{"prompt":"p","effort":3}`, SkipEffortInvalid},
		{"executor invalid", `{"prompt":"p","executor":"k8s"}`, SkipExecutorInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantSkip(t, parseOne(t, "task-create", c.body), c.code) })
	}
}

// Scenario: S002-03
func TestS002_03_CreateBoundaries(t *testing.T) {
	t.Parallel()
	okPrompt := strings.Repeat("字", MaxPromptChars)
	if b := parseOne(t, "task-create", `{"prompt":"`+okPrompt+`","name":"`+strings.Repeat("n", MaxNameChars)+`"}`); !b.Valid() {
		t.Fatalf("20000-character prompt and 100-character name refused: %s", b.Detail)
	}
	for _, e := range Efforts {
		if b := parseOne(t, "task-create", `{"prompt":"p","effort":"`+e+`"}`); !b.Valid() {
			t.Fatalf("effort %s refused", e)
		}
	}
	for _, e := range Executors {
		if b := parseOne(t, "task-create", `{"prompt":"p","executor":"`+e+`"}`); !b.Valid() {
			t.Fatalf("executor %s refused", e)
		}
	}
}

// Scenario: S002-03
func TestS002_03_LineStartFenceTruncatesBody(t *testing.T) {
	t.Parallel()
	out := "```task-create\n{\"prompt\": \"line one\n```\nnot part of it\"}\n```\n"
	p := Parse(out)
	if len(p.Blocks) != 1 {
		t.Fatalf("blocks = %+v", p.Blocks)
	}
	wantSkip(t, p.Blocks[0], SkipInvalidJSON)
}

// Scenario: S002-03
func TestS002_03_CreateLimitFive(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	for i := 0; i < 7; i++ {
		out.WriteString(block("task-create", fmt.Sprintf(`{"prompt":"p%d"}`, i)))
	}
	p := Parse(out.String())
	for i, b := range p.Blocks {
		if (i < MaxCreates) != b.Valid() {
			t.Fatalf("block %d valid=%v skip=%s", i, b.Valid(), b.Skip)
		}
		if i >= MaxCreates && b.Skip != SkipOverLimit {
			t.Fatalf("block %d skip = %s", i, b.Skip)
		}
	}
}

// Scenario: S002-03
func TestS002_03_InvalidBlocksUseNoSlot(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	out.WriteString(block("task-create", `{"prompt":""}`))
	for i := 0; i < 5; i++ {
		out.WriteString(block("task-create", fmt.Sprintf(`{"prompt":"p%d"}`, i)))
	}
	if n := len(Plan(Parse(out.String()))); n != 5 {
		t.Fatalf("%d creations planned, want 5", n)
	}
}

// Scenario: S002-04
func TestS002_04_PollAliases(t *testing.T) {
	t.Parallel()
	for _, info := range []string{"task-poll", "task-read", "read-thread", "read_thread"} {
		b := parseOne(t, info, `{"task_id":"`+idA+`"}`)
		if !b.Valid() || b.Tool != ToolPoll || b.Info != info || b.Read.Targets[0] != idA {
			t.Fatalf("%s: %+v", info, b)
		}
		if b.Read.Timeout != 0 {
			t.Fatalf("%s without wait_seconds: timeout %s, want an immediate snapshot", info, b.Read.Timeout)
		}
	}
}

// Scenario: S002-04
func TestS002_04_PollClamps(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body              string
		interval, timeout time.Duration
		chars             int
	}{
		{`"interval_seconds":0,"timeout_seconds":-5,"chars":1`, MinInterval, 0, MinChars},
		{`"interval_seconds":600,"timeout_seconds":99999,"chars":99999`, MaxInterval, MaxTimeout, MaxChars},
		{`"interval_seconds":1e308,"timeout_seconds":1e308,"chars":1e308`, MaxInterval, MaxTimeout, MaxChars},
		{`"interval_seconds":5,"timeout_seconds":300,"chars":2000`, 5 * time.Second, 300 * time.Second, 2000},
		{`"timeout_seconds":0`, DefaultInterval, 0, DefaultChars},
	}
	for _, c := range cases {
		b := parseOne(t, "task-poll", `{"task_id":"`+idA+`",`+c.body+`}`)
		if !b.Valid() {
			t.Fatalf("%s: skipped %s", c.body, b.Detail)
		}
		r := b.Read
		if r.Interval != c.interval || r.Timeout != c.timeout || r.Chars != c.chars {
			t.Fatalf("%s: got interval %s timeout %s chars %d", c.body, r.Interval, r.Timeout, r.Chars)
		}
	}
}

// Scenario: S002-04
func TestS002_04_WaitSecondsMeansOneReadAfterIt(t *testing.T) {
	t.Parallel()
	b := parseOne(t, "task-read", `{"task_id":"`+idA+`","wait_seconds":30}`)
	if b.Read.Interval != 30*time.Second || b.Read.Timeout != 30*time.Second {
		t.Fatalf("wait_seconds 30: %+v", b.Read)
	}
	b = parseOne(t, "task-read", `{"task_id":"`+idA+`","wait_seconds":4000}`)
	if b.Read.Interval != MaxInterval || b.Read.Timeout != MaxTimeout {
		t.Fatalf("wait_seconds 4000 clamps: %+v", b.Read)
	}
}

// Scenario: S002-04
func TestS002_04_PollAndReadShareTheLimit(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	for i, info := range []string{"task-poll", "task-read", "read-thread", "read_thread", "task-poll", "task-read", "read_thread"} {
		out.WriteString(block(info, fmt.Sprintf(`{"task_id":"t%d"}`, i)))
	}
	p := Parse(out.String())
	if n := len(Plan(p)); n != MaxReads {
		t.Fatalf("%d reads planned, want %d", n, MaxReads)
	}
	for _, b := range p.Blocks[MaxReads:] {
		wantSkip(t, b, SkipOverLimit)
	}
}

// Scenario: S002-04
func TestS002_04_PollTargetRequired(t *testing.T) {
	t.Parallel()
	wantSkip(t, parseOne(t, "task-poll", `{"chars":300}`), SkipTargetMissing)
	wantSkip(t, parseOne(t, "task-poll", `{"task_id":""}`), SkipTargetMissing)
	wantSkip(t, parseOne(t, "task-poll", `{"task_id":7}`), SkipInvalidField)
	wantSkip(t, parseOne(t, "task-poll", `{"task_id":"x","chars":"many"}`), SkipInvalidField)
}

// Scenario: S002-05
func TestS002_05_WaitAliasesAndDedupe(t *testing.T) {
	t.Parallel()
	for _, info := range []string{"wait-threads", "wait_threads"} {
		for _, key := range []string{"task_ids", "thread_ids", "threads"} {
			b := parseOne(t, info, `{"`+key+`":["`+idB+`","codex://threads/`+idA+`","`+idB+`",""]}`)
			if !b.Valid() || b.Tool != ToolWait {
				t.Fatalf("%s/%s: %+v", info, key, b)
			}
			if got := strings.Join(b.Read.Targets, ","); got != idB+","+idA {
				t.Fatalf("%s/%s: targets %s", info, key, got)
			}
			if b.Read.Timeout != DefaultWaitTimeout {
				t.Fatalf("default wait timeout %s", b.Read.Timeout)
			}
		}
	}
}

// Scenario: S002-05
func TestS002_05_WaitAtMostEightTargets(t *testing.T) {
	t.Parallel()
	ids := make([]string, 11)
	for i := range ids {
		ids[i] = fmt.Sprintf(`"t%d"`, i)
	}
	b := parseOne(t, "wait-threads", `{"task_ids":[`+strings.Join(ids, ",")+`]}`)
	if len(b.Read.Targets) != MaxWaitTargets || b.Read.DroppedTargets != 3 {
		t.Fatalf("targets %d dropped %d", len(b.Read.Targets), b.Read.DroppedTargets)
	}
}

// Scenario: S002-05
func TestS002_05_WaitAtMostTwoBlocks(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	for i := range 3 {
		sb.WriteString(block("wait-threads", fmt.Sprintf(`{"task_ids":["a%d"]}`, i)))
	}
	out := sb.String()
	p := Parse(out)
	if len(Plan(p)) != MaxWaits {
		t.Fatalf("planned %d waits", len(Plan(p)))
	}
	wantSkip(t, p.Blocks[2], SkipOverLimit)
}

// Scenario: S002-05
func TestS002_05_WaitClampsAndMissingTargets(t *testing.T) {
	t.Parallel()
	b := parseOne(t, "wait_threads", `{"threads":["a"],"interval_seconds":0.2,"timeout_seconds":7200,"chars":10}`)
	if b.Read.Interval != MinInterval || b.Read.Timeout != MaxTimeout || b.Read.Chars != MinChars {
		t.Fatalf("clamps: %+v", b.Read)
	}
	wantSkip(t, parseOne(t, "wait-threads", `{"task_ids":[]}`), SkipTargetMissing)
	wantSkip(t, parseOne(t, "wait-threads", `{}`), SkipTargetMissing)
	wantSkip(t, parseOne(t, "wait-threads", `{"task_ids":"a"}`), SkipInvalidField)
}

// Scenario: S002-06
func TestS002_06_CancelRetryAliases(t *testing.T) {
	t.Parallel()
	for _, info := range []string{"task-cancel", "task_cancel", "task-retry", "task_retry"} {
		for _, key := range []string{"task_id", "to", "to_task_id", "thread_id"} {
			b := parseOne(t, info, `{"`+key+`":"`+strings.ToUpper(idA)+`"}`)
			if !b.Valid() || b.Target != idA {
				t.Fatalf("%s/%s: %+v", info, key, b)
			}
		}
	}
	if b := parseOne(t, "task_cancel", `{}`); b.Skip != SkipTargetMissing {
		t.Fatalf("cancel without target: %+v", b)
	}
}

// Scenario: S002-06
func TestS002_06_CancelRetryLimits(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	for i := range 7 {
		if i < 6 {
			sb.WriteString(block("task-cancel", fmt.Sprintf(`{"task_id":"a%d"}`, i)))
		}
		sb.WriteString(block("task_retry", fmt.Sprintf(`{"to":"b%d"}`, i)))
	}
	out := sb.String()
	p := Parse(out)
	cancels, retries := 0, 0
	for _, b := range Plan(p) {
		switch b.Tool {
		case ToolCancel:
			cancels++
		case ToolRetry:
			retries++
		}
	}
	if cancels != MaxCancels || retries != MaxRetries {
		t.Fatalf("cancels %d retries %d", cancels, retries)
	}
}

// Scenario: S002-07
func TestS002_07_PlanOrder(t *testing.T) {
	t.Parallel()
	out := block("wait-threads", `{"task_ids":["w"]}`) + block("task-poll", `{"task_id":"p"}`) +
		block("task-retry", `{"task_id":"r"}`) + block("task-cancel", `{"task_id":"c"}`) +
		block("task-create", `{"prompt":"x"}`) + block("task-create", `{"prompt":"y"}`)
	var got []string
	for _, b := range Plan(Parse(out)) {
		got = append(got, fmt.Sprintf("%s#%d", b.Tool, b.Seq))
	}
	want := "task-create#5 task-create#6 task-cancel#4 task-retry#3 task-poll#2 wait-threads#1"
	if strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

func TestParseIgnoresOtherFencesAndTheirContent(t *testing.T) {
	t.Parallel()
	out := "```go\nfmt.Println()\n```task-create\n{\"prompt\":\"inside go\"}\n```\n" +
		"```text\n```task-create\n{\"prompt\":\"quoted\"}\n```\n```\n" +
		"```json\n{}\n```\n" + block("task-create", `{"prompt":"real"}`)
	p := Parse(out)
	if len(p.Blocks) != 1 || p.Blocks[0].Create.Prompt != "real" {
		t.Fatalf("blocks %+v", p.Blocks)
	}
}

func TestParseUnterminatedBlock(t *testing.T) {
	t.Parallel()
	p := Parse("```task-poll\n{\"task_id\":\"a\"}\n")
	if len(p.Blocks) != 1 {
		t.Fatalf("blocks %+v", p.Blocks)
	}
	wantSkip(t, p.Blocks[0], SkipUnterminated)
}

func TestParseCRLF(t *testing.T) {
	t.Parallel()
	p := Parse("```task-poll\r\n{\"task_id\":\"a\"}\r\n```\r\n")
	if len(p.Blocks) != 1 || !p.Blocks[0].Valid() {
		t.Fatalf("blocks %+v", p.Blocks)
	}
}

// Bad input: thousands of blocks are bounded by the candidate cap.
func TestParseThousandsOfBlocks(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	for i := range 5000 {
		sb.WriteString(block("task-create", fmt.Sprintf(`{"prompt":"p%d"}`, i)))
	}
	p := Parse(sb.String())
	if len(p.Blocks) != MaxCandidates || p.DroppedFences != 5000-MaxCandidates {
		t.Fatalf("kept %d dropped %d", len(p.Blocks), p.DroppedFences)
	}
	if n := len(Plan(p)); n != MaxCreates {
		t.Fatalf("planned %d", n)
	}
}

// Bad input: a 10 MB output is scanned only up to MaxScanBytes.
func TestParseTenMegabytes(t *testing.T) {
	t.Parallel()
	out := strings.Repeat("x", 10<<20) + block("task-create", `{"prompt":"late"}`)
	p := Parse(out)
	if !p.Truncated || len(p.Blocks) != 0 {
		t.Fatalf("truncated %v blocks %d", p.Truncated, len(p.Blocks))
	}
}

// Bad input: an oversized body and deeply nested JSON.
func TestParseHugeBodyAndDeepNesting(t *testing.T) {
	t.Parallel()
	huge := block("task-create", `{"prompt":"`+strings.Repeat("a", MaxBodyBytes+10)+`"}`)
	wantSkip(t, Parse(huge).Blocks[0], SkipBodyTooLarge)
	deep := `{"prompt":"p","x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	b := Parse(block("task-create", deep)).Blocks[0]
	if b.Valid() {
		t.Fatalf("100000-deep nesting accepted")
	}
}

// Bad input: binary garbage.
func TestParseBinaryGarbage(t *testing.T) {
	t.Parallel()
	garbage := make([]byte, 1<<16)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i/3)
	}
	out := "```task-poll\n" + string(garbage) + "\n```\n```task-cancel\n{\"task_id\":\"\xff\xfe" + strings.Repeat("\x00", 100) + "\"}\n```\n"
	p := Parse(out)
	for _, b := range p.Blocks {
		if b.Valid() && b.Tool == ToolPoll {
			t.Fatalf("garbage poll accepted")
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(block("task-create", `{"prompt":"p","name":"n","effort":"high"}`))
	f.Add(block("task-poll", `{"task_id":"a","wait_seconds":3}`) + block("wait-threads", `{"task_ids":["a","b","a"]}`))
	f.Add("```task-cancel\n{\"to\":\"x\"}\n```task-retry\n{\"thread_id\":\"y\"}\n```\n")
	f.Add("```text\n```task-create\n{}\n```\n```\n")
	f.Add("```task-create\n{\"prompt\":\"" + strings.Repeat("[", 50) + "\n")
	f.Add(strings.Repeat(block("read_thread", `{"task_id":"z","chars":1e9}`), 8))
	f.Add("~~~task-create\n{\"prompt\":\"t\"}\n~~~\n````\n```task-poll\n```\n````\n   ```TASK-POLL\n{}\n```\n    ```task-poll\n")
	f.Add(block("task-read", `{"task_id":"a","wait_seconds":20,"timeout_seconds":1}`) + block("task-read", `{ "task_id" : "a", "wait_seconds" : 20, "timeout_seconds" : 1 }`))
	f.Fuzz(func(t *testing.T, out string) {
		p := Parse(out)
		if len(p.Blocks) > MaxCandidates {
			t.Fatalf("%d blocks kept", len(p.Blocks))
		}
		count := map[Tool]int{}
		for _, b := range Plan(p) {
			count[b.Tool]++
			if r := b.Read; r != nil {
				if r.Interval < MinInterval || r.Interval > MaxInterval || r.Timeout < 0 || r.Timeout > MaxTimeout ||
					r.Chars < MinChars || r.Chars > MaxChars || len(r.Targets) == 0 || len(r.Targets) > MaxWaitTargets {
					t.Fatalf("read out of bounds: %+v", r)
				}
			}
			if c := b.Create; c != nil && (c.Prompt == "" || len([]rune(c.Prompt)) > MaxPromptChars || len([]rune(c.Name)) > MaxNameChars) {
				t.Fatalf("create out of bounds")
			}
		}
		if count[ToolCreate] > MaxCreates || count[ToolPoll] > MaxReads || count[ToolWait] > MaxWaits ||
			count[ToolCancel] > MaxCancels || count[ToolRetry] > MaxRetries {
			t.Fatalf("limits broken: %v", count)
		}
	})
}
