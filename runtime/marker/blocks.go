package marker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
)

// Per-turn limits. Blocks over a limit are ignored and reported as skipped.
const (
	MaxCreates       = 5
	MaxReads         = 5 // task-poll and its aliases together
	MaxWaits         = 2
	MaxWaitTargets   = 8
	MaxCancels       = 5
	MaxRetries       = 5
	MaxPromptChars   = 20000
	MaxNameChars     = 100
	maxTargetIDBytes = 64 // an id that is no thread id is echoed at most this long
)

// Clamps of poll and wait.
const (
	MinInterval     = time.Second
	MaxInterval     = 60 * time.Second
	MaxTimeout      = 3600 * time.Second
	MinChars        = 200
	MaxChars        = 8000
	DefaultInterval = 5 * time.Second
	DefaultChars    = 2000
	// DefaultWaitTimeout applies to a wait block without timeout_seconds; a poll without one
	// is one immediate snapshot.
	DefaultWaitTimeout = 300 * time.Second
)

// Efforts and executors a task-create block may name.
var (
	Efforts   = []string{"low", "medium", "high", "xhigh", "max"}
	Executors = []string{"local", "docker", "cloud"}
)

// Skip reasons: why a block is not run. They are stable codes, kept in the audit.
const (
	SkipUnterminated    = "unterminated"
	SkipBodyTooLarge    = "body_too_large"
	SkipInvalidJSON     = "invalid_json"
	SkipInvalidField    = "invalid_field"
	SkipPromptMissing   = "prompt_missing"
	SkipPromptTooLong   = "prompt_too_long"
	SkipNameInvalid     = "name_invalid"
	SkipEffortInvalid   = "effort_invalid"
	SkipExecutorInvalid = "executor_invalid"
	SkipApprovalInvalid = "approval_invalid"
	SkipTargetMissing   = "target_missing"
	SkipOverLimit       = "over_limit"
	SkipAbandoned       = "abandoned" // the author was cancelled before the block ran
	SkipDuplicate       = "duplicate" // the same tool and body as an earlier block of the reply
	// Near misses: lines that look like tool fences but are none, reported so the agent learns.
	SkipInfoCase  = "info_case"        // a tool name in another case (Task-Create)
	SkipInfoWords = "info_extra_words" // a tool name with more words after it (task-poll json)
	SkipIndented  = "indented"         // a tool fence indented 4+ spaces (an indented code block)
)

// Create is a valid task-create block. Name is for the report only.
type Create struct {
	Prompt   string
	Name     string
	Model    string
	Effort   string
	Executor string
	Harness  string
	// Approval is the created thread's approval policy; "" runs it under its author's.
	Approval string
}

// Read is a valid poll or wait block, clamped. Timeout 0 is one immediate snapshot.
type Read struct {
	Targets  []string // normalized thread ids (or the id as written when it is none), in order, unique
	Interval time.Duration
	Timeout  time.Duration
	Chars    int
	// DroppedTargets counts wait targets beyond MaxWaitTargets, which are ignored.
	DroppedTargets int
	// Once is a wait_seconds read: it waits Timeout, events or not, then reads once.
	Once bool
}

// Block is one tool block of a turn, in output order.
type Block struct {
	Seq    int    // 1-based position among the turn's tool blocks
	Info   string // the info string as written (an alias stays visible in the report)
	Tool   Tool
	Create *Create
	Read   *Read
	Target string // task-cancel, task-retry
	Skip   string // a Skip* code; "" when the block is valid and within the limits
	Detail string // what exactly was wrong, for the report
}

// Valid reports whether the block is to be run.
func (b Block) Valid() bool { return b.Skip == "" }

// Parsed is every tool block of one turn's output.
type Parsed struct {
	Blocks []Block
	// DroppedFences counts tool fences beyond MaxCandidates: counted, never parsed or run.
	DroppedFences int
	// Truncated says the output was longer than MaxScanBytes; only its head was scanned.
	Truncated bool
}

// Parse finds the tool blocks of a turn's output, decodes and validates them, and applies
// the per-turn limits. It does no I/O and is bounded by MaxScanBytes and MaxCandidates.
func Parse(output string) Parsed {
	fences, dropped, truncated := scan(output)
	out := Parsed{DroppedFences: dropped, Truncated: truncated, Blocks: make([]Block, 0, len(fences))}
	for i, f := range fences {
		b := decodeBlock(f)
		b.Seq = i + 1
		out.Blocks = append(out.Blocks, b)
	}
	dedupe(out.Blocks, fences)
	applyLimits(out.Blocks)
	return out
}

// dedupe skips a valid block whose tool and body (white space between JSON tokens aside) are
// those of an earlier valid block of the same output: a reply that repeats a block means it
// once, and two identical task-create blocks would otherwise create two threads.
func dedupe(blocks []Block, fences []fence) {
	first := map[string]int{}
	for i := range blocks {
		b := &blocks[i]
		if !b.Valid() {
			continue
		}
		var compact bytes.Buffer
		body := []byte(fences[i].body)
		if json.Compact(&compact, body) == nil {
			body = compact.Bytes()
		}
		key := string(b.Tool) + "\x00" + string(body)
		if seq, seen := first[key]; seen {
			b.Skip, b.Detail = SkipDuplicate, fmt.Sprintf("identical to block %d of this reply, which runs once for both", seq)
			continue
		}
		first[key] = b.Seq
	}
}

// applyLimits skips valid blocks over their tool's per-turn limit. Invalid blocks do not use
// up a slot: they run nothing.
func applyLimits(blocks []Block) {
	limit := map[Tool]int{ToolCreate: MaxCreates, ToolPoll: MaxReads, ToolWait: MaxWaits, ToolCancel: MaxCancels, ToolRetry: MaxRetries}
	used := map[Tool]int{}
	for i := range blocks {
		b := &blocks[i]
		if !b.Valid() {
			continue
		}
		used[b.Tool]++
		if used[b.Tool] > limit[b.Tool] {
			b.Skip = SkipOverLimit
			b.Detail = fmt.Sprintf("at most %d %s blocks run per turn", limit[b.Tool], b.Tool)
		}
	}
}

func decodeBlock(f fence) Block {
	b := Block{Info: f.info, Tool: f.tool}
	skip := func(code, format string, args ...any) Block {
		b.Skip, b.Detail = code, fmt.Sprintf(format, args...)
		return b
	}
	if f.nearMiss != "" {
		return skip(f.nearMiss, "not run: %s", f.detail)
	}
	if !f.terminated {
		return skip(SkipUnterminated, "the block has no closing fence")
	}
	if len(f.body) > MaxBodyBytes {
		return skip(SkipBodyTooLarge, "the body is over %d bytes", MaxBodyBytes)
	}
	obj, err := decodeObject(f.body)
	if err != nil {
		return skip(SkipInvalidJSON, "the body is not one JSON object: %s", short(err.Error()))
	}
	var fe *fieldError
	switch f.tool {
	case ToolCreate:
		b.Create, fe = decodeCreate(obj)
	case ToolPoll:
		b.Read, fe = decodeRead(obj, false)
	case ToolWait:
		b.Read, fe = decodeRead(obj, true)
	case ToolCancel, ToolRetry:
		b.Target, fe = decodeTarget(obj)
	}
	if fe != nil {
		return skip(fe.code, "%s", fe.detail)
	}
	return b
}

// decodeObject decodes exactly one JSON object and nothing after it.
func decodeObject(body string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, fmt.Errorf("null is not an object")
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the object")
	}
	return obj, nil
}

type fieldError struct{ code, detail string }

func fieldErr(code, format string, args ...any) *fieldError {
	return &fieldError{code: code, detail: fmt.Sprintf(format, args...)}
}

// optString reads an optional string field: absent and null are "", present is returned.
func optString(obj map[string]json.RawMessage, key string) (string, bool, *fieldError) {
	raw, ok := obj[key]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fieldErr(SkipInvalidField, "%s must be a string", key)
	}
	return s, true, nil
}

func decodeCreate(obj map[string]json.RawMessage) (*Create, *fieldError) {
	var c Create
	var fe *fieldError
	var present bool
	if c.Prompt, present, fe = optString(obj, "prompt"); fe != nil {
		return nil, fe
	}
	switch n := utf8.RuneCountInString(c.Prompt); {
	case !present || n == 0:
		return nil, fieldErr(SkipPromptMissing, "prompt is required (1 to %d characters)", MaxPromptChars)
	case n > MaxPromptChars:
		return nil, fieldErr(SkipPromptTooLong, "prompt has %d characters; at most %d", n, MaxPromptChars)
	}
	if c.Name, present, fe = optString(obj, "name"); fe != nil {
		return nil, fe
	}
	if n := utf8.RuneCountInString(c.Name); present && (n == 0 || n > MaxNameChars) {
		return nil, fieldErr(SkipNameInvalid, "name must have 1 to %d characters", MaxNameChars)
	}
	if c.Model, _, fe = optString(obj, "model"); fe != nil {
		return nil, fe
	}
	if c.Harness, _, fe = optString(obj, "harness"); fe != nil {
		return nil, fe
	}
	if c.Effort, present, fe = optString(obj, "effort"); fe != nil || (present && !contains(Efforts, c.Effort)) {
		return nil, fieldErr(SkipEffortInvalid, "effort must be one of %v; a model's other thinking options "+
			"that harness inspect lists (such as ultra) are chosen with delegate start --thinking, not by a block", Efforts)
	}
	if c.Approval, present, fe = optString(obj, "approval"); fe != nil || (present && !contains(model.ApprovalPolicies, c.Approval)) {
		return nil, fieldErr(SkipApprovalInvalid, "approval must be one of %v, and no wider than its author's", model.ApprovalPolicies)
	}
	if c.Executor, present, fe = optString(obj, "executor"); fe != nil || (present && !contains(Executors, c.Executor)) {
		detail := fmt.Sprintf("executor must be one of %v", Executors)
		if name, ok := strings.CutPrefix(c.Executor, "harness "); ok && fe == nil {
			detail += fmt.Sprintf(`; to pick a harness write the field "harness": %q instead`, strings.TrimSpace(name))
		} else {
			detail += `; a harness is picked with the field "harness": NAME`
		}
		return nil, fieldErr(SkipExecutorInvalid, "%s", detail)
	}
	return &c, nil
}

// targetKeys are the keys naming the one target of poll, cancel and retry, first wins.
var targetKeys = []string{"task_id", "to", "to_task_id", "thread_id"}

func decodeTarget(obj map[string]json.RawMessage) (string, *fieldError) {
	for _, k := range targetKeys {
		s, present, fe := optString(obj, k)
		if fe != nil {
			return "", fe
		}
		if present && s != "" {
			return normalizeTarget(s), nil
		}
	}
	return "", fieldErr(SkipTargetMissing, "task_id is required")
}

// waitKeys are the keys listing wait targets, first wins.
var waitKeys = []string{"task_ids", "thread_ids", "threads"}

func decodeTargets(obj map[string]json.RawMessage) ([]string, int, *fieldError) {
	for _, k := range waitKeys {
		raw, ok := obj[k]
		if !ok || string(raw) == "null" {
			continue
		}
		var ids []string
		if err := json.Unmarshal(raw, &ids); err != nil {
			return nil, 0, fieldErr(SkipInvalidField, "%s must be a list of thread ids", k)
		}
		seen := map[string]bool{}
		var out []string
		dropped := 0
		for _, id := range ids {
			if id == "" {
				continue
			}
			id = normalizeTarget(id)
			if seen[id] {
				continue
			}
			seen[id] = true
			if len(out) == MaxWaitTargets {
				dropped++
				continue
			}
			out = append(out, id)
		}
		if len(out) == 0 {
			break
		}
		return out, dropped, nil
	}
	return nil, 0, fieldErr(SkipTargetMissing, "task_ids must list at least one thread id")
}

func decodeRead(obj map[string]json.RawMessage, wait bool) (*Read, *fieldError) {
	r := Read{Interval: DefaultInterval, Chars: DefaultChars}
	if wait {
		ids, dropped, fe := decodeTargets(obj)
		if fe != nil {
			return nil, fe
		}
		r.Targets, r.DroppedTargets, r.Timeout = ids, dropped, DefaultWaitTimeout
	} else {
		id, fe := decodeTarget(obj)
		if fe != nil {
			return nil, fe
		}
		r.Targets = []string{id}
	}
	num := func(key string) (float64, bool, *fieldError) {
		raw, ok := obj[key]
		if !ok || string(raw) == "null" {
			return 0, false, nil
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || math.IsNaN(f) {
			return 0, false, fieldErr(SkipInvalidField, "%s must be a number", key)
		}
		return f, true, nil
	}
	ws, once, fe := num("wait_seconds")
	if fe != nil {
		return nil, fe
	}
	if once && !wait {
		// One read after that long, whatever the target does meanwhile; interval_seconds and
		// timeout_seconds of the same block do not apply.
		r.Timeout = clampSeconds(ws, 0, MaxTimeout)
		r.Interval = clampSeconds(ws, MinInterval, MaxInterval)
		r.Once = r.Timeout > 0
		if v, ok, fe := num("chars"); fe != nil {
			return nil, fe
		} else if ok {
			r.Chars = clampChars(v)
		}
		return &r, nil
	}
	if once { // a wait: its timeout and interval, which its own keys may override
		r.Timeout = clampSeconds(ws, 0, MaxTimeout)
		r.Interval = clampSeconds(ws, MinInterval, MaxInterval)
	}
	if v, ok, fe := num("interval_seconds"); fe != nil {
		return nil, fe
	} else if ok {
		r.Interval = clampSeconds(v, MinInterval, MaxInterval)
	}
	if v, ok, fe := num("timeout_seconds"); fe != nil {
		return nil, fe
	} else if ok {
		r.Timeout = clampSeconds(v, 0, MaxTimeout)
	}
	if v, ok, fe := num("chars"); fe != nil {
		return nil, fe
	} else if ok {
		r.Chars = clampChars(v)
	}
	return &r, nil
}

func clampChars(v float64) int { return int(math.Max(MinChars, math.Min(MaxChars, math.Round(v)))) }

// clampSeconds converts seconds to a duration within [lo, hi], clamping before converting so
// that a huge number cannot overflow.
func clampSeconds(s float64, lo, hi time.Duration) time.Duration {
	s = math.Max(lo.Seconds(), math.Min(hi.Seconds(), s))
	return time.Duration(math.Round(s * float64(time.Second)))
}

// normalizeTarget turns a thread id or link into the canonical id; anything else is kept,
// shortened, so that execution reports it as not found.
func normalizeTarget(s string) string {
	if id, err := model.ParseThreadID(s); err == nil {
		return string(id)
	}
	if len(s) > maxTargetIDBytes {
		s = s[:maxTargetIDBytes]
	}
	return strings.ToValidUTF8(s, "?")
}

func contains(set []string, s string) bool {
	for _, v := range set {
		if v == s {
			return true
		}
	}
	return false
}

// short cuts a reason for the report to 120 bytes, at a character's start: a cut inside a
// multi-byte character (a non-ASCII path) would put invalid UTF-8 in the author's turn.
func short(s string) string {
	if len(s) <= 120 {
		return s
	}
	n := 120
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
