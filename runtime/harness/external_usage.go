package harness

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/codexhost/codexhost/model"
)

// An external harness may report a turn's token usage by printing, on stderr, a line
//
//	codexhost-usage: {"input":1200,"cachedInput":0,"output":340,"reasoning":0,"model":"m","contextWindow":200000}
//
// at any point of the turn; the last valid one counts and holds the whole turn's tokens.
// "total" may be given, else it is input + output. Unknown fields are ignored; a line that
// does not parse, or has a negative count, counts nothing. A turn that prints none has no
// usage (null), never zero.

// UsageLinePrefix starts an external harness's usage line on stderr.
const UsageLinePrefix = "codexhost-usage:"

// extMaxUsageLine bounds a line that is still looked at; longer lines are skipped.
const extMaxUsageLine = 4 << 10

type extUsageLine struct {
	Input         int64  `json:"input"`
	CachedInput   int64  `json:"cachedInput"`
	Output        int64  `json:"output"`
	Reasoning     int64  `json:"reasoning"`
	Total         *int64 `json:"total"`
	Model         string `json:"model"`
	ContextWindow int64  `json:"contextWindow"`
}

// report is the turn's usage report; nil when the turn printed no valid line.
func (u *extUsageLine) report(turnID string) *model.UsageReport {
	if u == nil {
		return nil
	}
	c := model.TokenCounts{Input: u.Input, CachedInput: u.CachedInput, Output: u.Output, Reasoning: u.Reasoning, Total: u.Input + u.Output}
	if u.Total != nil {
		c.Total = *u.Total
	}
	if !c.Valid() || u.ContextWindow < 0 {
		return nil
	}
	return &model.UsageReport{Turn: turnID, TurnTotal: &c, Last: c, ContextWindow: u.ContextWindow, Model: u.Model}
}

func parseUsageLine(line []byte) *extUsageLine {
	rest, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte(UsageLinePrefix))
	if !ok {
		return nil
	}
	var u extUsageLine
	if json.Unmarshal(bytes.TrimSpace(rest), &u) != nil || u.report("") == nil {
		return nil // an invalid line leaves the last valid one in force
	}
	return &u
}

// extStderr is what is kept of a turn's stderr: its tail for the log, and its usage.
type extStderr struct {
	tail  []byte
	usage *extUsageLine
}

// extReadStderr reads stderr to EOF, keeping the last limit bytes and the last usage line.
func extReadStderr(r io.Reader, limit int) extStderr {
	var out extStderr
	var line []byte
	skipping := false // the current line outgrew extMaxUsageLine
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		out.tail = append(out.tail, chunk...)
		if len(out.tail) > limit {
			out.tail = append(out.tail[:0], out.tail[len(out.tail)-limit:]...)
		}
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			part := chunk
			if i >= 0 {
				part = chunk[:i]
			}
			if !skipping {
				line = append(line, part...)
				skipping = len(line) > extMaxUsageLine
			}
			if i < 0 {
				break
			}
			if u := parseUsageLine(line); u != nil && !skipping {
				out.usage = u
			}
			line, skipping, chunk = line[:0], false, chunk[i+1:]
		}
		if err != nil {
			if u := parseUsageLine(line); u != nil && !skipping {
				out.usage = u
			}
			return out
		}
	}
}
