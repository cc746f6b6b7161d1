// Package marker runs marker blocks: fenced blocks in a completed turn's output with which an
// agent creates, polls, waits for, cancels and retries other threads. The parsing, limits,
// clamps, gates, order and report of this file and its pure siblings do no I/O; the engine
// (engine.go) executes what they accept, after the turn, behind narrow interfaces.
package marker

import (
	"strings"

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
var infoStrings = map[string]Tool{
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

// ToolOf returns the tool an info string names, if any.
func ToolOf(info string) (Tool, bool) {
	t, ok := infoStrings[info]
	return t, ok
}

// Bounds on hostile input: the output scanned and the candidate blocks kept are capped, so
// a 10 MB output or thousands of blocks cost bounded time and memory.
const (
	// MaxScanBytes is how much of a turn's output is scanned for blocks; the rest is ignored.
	MaxScanBytes = 2 << 20
	// MaxCandidates is how many tool fences are kept; the rest are counted, not parsed.
	MaxCandidates = 64
	// MaxBodyBytes bounds one block's body: a 20,000-character prompt escaped as \uXXXX fits.
	MaxBodyBytes = 256 << 10
)

// fence is one tool fence found by the scanner, before its body is decoded.
type fence struct {
	info       string
	tool       Tool
	body       string
	terminated bool
}

// scan finds the tool fences of output, in order. A fence is a line starting with ``` whose
// info string names a tool; its body runs to the next line starting with ``` (non-greedy), so
// a fence line inside a body cuts the block. Fences of other languages are skipped whole, as
// Markdown renders them: a tool fence quoted inside one is text, not a block.
func scan(output string) (found []fence, dropped int, truncated bool) {
	if len(output) > MaxScanBytes {
		output, truncated = output[:MaxScanBytes], true
	}
	var (
		inOther bool
		cur     *fence
		body    strings.Builder
	)
	for len(output) > 0 {
		line, rest, _ := strings.Cut(output, "\n")
		output = rest
		line = strings.TrimSuffix(line, "\r")
		isFence := strings.HasPrefix(line, "```")
		switch {
		case cur != nil:
			if isFence {
				cur.body, cur.terminated = body.String(), true
				found = append(found, *cur)
				cur = nil
				body.Reset()
				continue
			}
			if body.Len() <= MaxBodyBytes {
				body.WriteString(line)
				body.WriteByte('\n')
			}
		case inOther:
			inOther = !(isFence && strings.TrimSpace(line[3:]) == "")
		case isFence:
			info := strings.TrimSpace(strings.TrimLeft(line, "`"))
			tool, ok := ToolOf(info)
			switch {
			case !ok:
				inOther = true
			case len(found) >= MaxCandidates:
				dropped++
				inOther = true // its body is not ours to read as fences
			default:
				cur = &fence{info: info, tool: tool}
			}
		}
	}
	if cur != nil {
		cur.body = body.String()
		found = append(found, *cur)
	}
	return found, dropped, truncated
}
