// Package marker runs marker blocks: fenced blocks in a completed turn's output with which an
// agent creates, polls, waits for, cancels and retries other threads. The parsing, limits,
// clamps, gates, order and report of this file and its pure siblings do no I/O; the engine
// (engine.go) executes what they accept, after the turn, behind narrow interfaces.
package marker

import (
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
)

// Tool is the canonical name of a marker tool.
type Tool = model.MarkerTool

// The five tools, by canonical name.
const (
	ToolCreate Tool = "task-create"
	ToolPoll   Tool = "task-poll"
	ToolWait   Tool = "wait-threads"
	ToolCancel Tool = "task-cancel"
	ToolRetry  Tool = "task-retry"
)

// infoStrings maps every accepted fence info string to its tool: the canonical names and
// their aliases.
// Built on first use: a package-level map or regexp is built by every process at start.
var infoStrings = sync.OnceValue(func() map[string]Tool {
	return map[string]Tool{
		"task-create":  ToolCreate,
		"task-poll":    ToolPoll,
		"task-read":    ToolPoll,
		"read-thread":  ToolPoll,
		"read_thread":  ToolPoll,
		"wait-threads": ToolWait,
		"wait_threads": ToolWait,
		"task-cancel":  ToolCancel,
		"task_cancel":  ToolCancel,
		"task-retry":   ToolRetry,
		"task_retry":   ToolRetry,
	}
})

// ToolOf returns the tool an info string names, if any.
func ToolOf(info string) (Tool, bool) {
	t, ok := infoStrings()[info]
	return t, ok
}

// Bounds on hostile input: the output scanned and the candidate blocks kept are capped, so
// a 10 MB output or thousands of blocks cost bounded time and memory.
const (
	// MaxScanBytes is how much of a turn's output is scanned for blocks; the rest is ignored.
	MaxScanBytes = 2 << 20
	// MaxCandidates is how many tool fences (near misses included) are kept; the rest are
	// counted, not parsed.
	MaxCandidates = 64
	// MaxBodyBytes bounds one block's body: a 20,000-character prompt escaped as \uXXXX fits.
	MaxBodyBytes = 256 << 10
)

// fence is one tool fence found by the scanner, before its body is decoded. A near miss
// (nearMiss set) is a line that looks like a tool fence but is none; it has no body.
type fence struct {
	info       string
	tool       Tool
	body       string
	terminated bool
	nearMiss   string // a Skip* code: why this is not a tool fence
	detail     string
}

// fenceLine is a line read as a CommonMark code fence: up to 3 spaces of indentation, a run
// of at least three backticks or tildes, then the info string (a backtick fence's info has
// no backtick). indent > 3 is an indented line, not a fence.
type fenceLine struct {
	indent int
	char   byte
	n      int
	info   string // trimmed
}

// readFence reads line as a fence line; ok is false for any other line. An indentation of 4
// or more is returned (ok true, indent > 3) so that a near miss can be told apart.
func readFence(line string) (fenceLine, bool) {
	var f fenceLine
	i := 0
	for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		if line[i] == '\t' {
			f.indent += 4 - f.indent%4 // tab stops of 4, as CommonMark counts them
		} else {
			f.indent++
		}
	}
	if i == len(line) || (line[i] != '`' && line[i] != '~') {
		return f, false
	}
	f.char = line[i]
	for i < len(line) && line[i] == f.char {
		f.n++
		i++
	}
	if f.n < 3 {
		return f, false
	}
	f.info = strings.Trim(line[i:], " \t")
	if f.char == '`' && strings.IndexByte(f.info, '`') >= 0 {
		return f, false // an inline code span, not a fence
	}
	return f, true
}

// closes reports whether line closes the fence open: the same character, at least as many,
// at most 3 spaces of indentation and nothing but white space after.
func (open fenceLine) closes(line string) bool {
	f, ok := readFence(line)
	return ok && f.indent <= 3 && f.char == open.char && f.n >= open.n && f.info == ""
}

// classify decides what a top-level fence line is: a tool fence (tool set), a near miss of
// one (code set), or another fence (neither).
func classify(f fenceLine) (info string, tool Tool, code, detail string) {
	word, rest, _ := strings.Cut(strings.ReplaceAll(f.info, "\t", " "), " ")
	rest = strings.TrimSpace(rest)
	if t, ok := ToolOf(word); ok {
		switch {
		case f.indent > 3:
			return word, t, SkipIndented, "the fence is indented 4 or more spaces, which Markdown reads as an indented code block; start it at the line's beginning"
		case rest != "":
			return word, t, SkipInfoWords, "the info string must be the tool name alone; remove " + quoteShort(rest)
		}
		return word, t, "", ""
	}
	if t, ok := ToolOf(strings.ToLower(word)); ok {
		return word, t, SkipInfoCase, "tool names are lowercase: write " + strings.ToLower(word)
	}
	return word, "", "", ""
}

// scan finds the tool fences of output, in order, as CommonMark reads fences: backtick and
// tilde fences, closed by the same character at least as many times; only fences at the top
// level count, so a tool fence quoted inside another fence (of any info string or length) is
// text. Near misses (a tool name in another case, with more words after it, or indented 4+
// spaces) are returned too, so that the report can say why they did not run.
func scan(output string) (found []fence, dropped int, truncated bool) {
	if len(output) > MaxScanBytes {
		output, truncated = output[:MaxScanBytes], true
	}
	var (
		open *fenceLine // the fence whose body is being read
		cur  *fence     // non-nil when that fence is a tool fence
		body strings.Builder
	)
	keep := func(f fence) bool {
		if len(found) >= MaxCandidates {
			dropped++
			return false
		}
		found = append(found, f)
		return true
	}
	for len(output) > 0 {
		line, rest, _ := strings.Cut(output, "\n")
		output = rest
		line = strings.TrimSuffix(line, "\r")
		if open != nil {
			if open.closes(line) {
				if cur != nil {
					cur.body, cur.terminated = body.String(), true
					found[len(found)-1] = *cur
				}
				open, cur = nil, nil
				body.Reset()
			} else if cur != nil && body.Len() <= MaxBodyBytes {
				body.WriteString(line)
				body.WriteByte('\n')
			}
			continue
		}
		fl, ok := readFence(line)
		if !ok {
			continue
		}
		info, tool, code, detail := classify(fl)
		switch {
		case fl.indent > 3:
			if code != "" {
				keep(fence{info: info, tool: tool, nearMiss: code, detail: detail})
			}
			continue // not a fence: the lines after it are read as top-level lines
		case code != "":
			keep(fence{info: info, tool: tool, nearMiss: code, detail: detail, terminated: true})
		case tool != "" && keep(fence{info: info, tool: tool}):
			cur = &fence{info: info, tool: tool}
		}
		open = &fl // every fence's body is skipped whole: what it quotes is not ours to run
	}
	if cur != nil {
		cur.body = body.String()
		found[len(found)-1] = *cur
	}
	return found, dropped, truncated
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
