package fakemodel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

type mode int

const (
	modeReply mode = iota
	modeHTTPError
	modeTruncated
	modeSlow
	modeHang
	modeFailed
	modeShell
	modeCall
)

// Behavior is what the server does for one request to /responses.
// Build one with Reply, HTTPError, Truncated, Slow, Hang, Failed, Shell or FunctionCall.
type Behavior struct {
	mode      mode
	text      string // reply text, or the error message of an HTTP error
	command   string // the command of a Shell call
	tool      string // the tool of a FunctionCall
	args      string // the JSON arguments of a FunctionCall
	namespace string // the namespace tool a FunctionCall must be offered in (MCPToolCall)
	// argsFrom makes the arguments from the previous call's output (MCPToolCallFrom).
	argsFrom func(prevOutput string) string
	status   int
	delay    time.Duration
	duration time.Duration
	// usage replaces DefaultUsage in response.completed; noUsage leaves usage out.
	usage   *Usage
	noUsage bool
}

// WithUsage is b reporting u instead of DefaultUsage when its response completes.
func (b Behavior) WithUsage(u Usage) Behavior { b.usage, b.noUsage = &u, false; return b }

// NoUsage is b completing its response without any usage.
func (b Behavior) NoUsage() Behavior { b.usage, b.noUsage = nil, true; return b }

// Reply streams an assistant message with text, one output_text.delta per word,
// and completes the response. An empty text means the default reply
// "fake reply #N to: <user text>", N being the request number.
func Reply(text string) Behavior { return Behavior{mode: modeReply, text: text} }

// HTTPError answers with status and an OpenAI-style JSON error body instead of a stream.
func HTTPError(status int) Behavior { return Behavior{mode: modeHTTPError, status: status} }

// Truncated sends response.created, output_item.added and one delta, then ends
// the body without response.completed.
func Truncated() Behavior { return Behavior{mode: modeTruncated} }

// Slow sends one output_text.delta every delay until duration has passed or
// the server is closed, then completes the message with the concatenated
// deltas. It stops at once when the client drops the stream.
func Slow(delay, duration time.Duration) Behavior {
	return Behavior{mode: modeSlow, delay: delay, duration: duration}
}

// Hang sends the headers and response.created, then nothing until the client
// drops the stream or the server is closed.
func Hang() Behavior { return Behavior{mode: modeHang} }

// Failed sends response.created and then a response.failed event.
func Failed() Behavior { return Behavior{mode: modeFailed} }

// String names the behaviour the way markers do: "reply", "http500",
// "truncated", "slow", "hang", "failed", "shell", "call". It is what Request.Mode records.
func (b Behavior) String() string {
	switch b.mode {
	case modeReply:
		return "reply"
	case modeHTTPError:
		return "http" + strconv.Itoa(b.status)
	case modeTruncated:
		return "truncated"
	case modeSlow:
		return "slow"
	case modeHang:
		return "hang"
	case modeFailed:
		return "failed"
	case modeShell:
		return "shell"
	case modeCall:
		return "call"
	}
	return fmt.Sprintf("mode(%d)", int(b.mode))
}

var markerRE = regexp.MustCompile(`\[\[([a-z]+):([^\]]*)\]\]`)

// markers returns the [[key:value]] markers of text; the last one of a key wins.
func markers(text string) map[string]string {
	m := map[string]string{}
	for _, g := range markerRE.FindAllStringSubmatch(text, -1) {
		m[g[1]] = strings.TrimSpace(g[2])
	}
	return m
}

// fromMarkers picks a behaviour from the markers in text. ok is false when
// text has neither a mode nor a reply marker. Invalid markers yield an HTTP
// 400 whose message says what is wrong, so the failing turn explains itself.
func fromMarkers(text string, slowDelay, slowDuration time.Duration) (b Behavior, ok bool) {
	m := markers(text)
	name, hasMode := m["mode"]
	reply, hasReply := m["reply"]
	if !hasMode && !hasReply {
		return Behavior{}, false
	}
	switch {
	case name == "" || name == "ok" || name == "reply":
		return Reply(reply), true
	case name == "nousage":
		return Reply(reply).NoUsage(), true
	case name == "truncated":
		return Truncated(), true
	case name == "hang":
		return Hang(), true
	case name == "failed":
		return Failed(), true
	case name == "shell":
		return Shell(m["cmd"]), true
	case name == "call":
		if m["tool"] == "" {
			return badRequest(fmt.Errorf("marker [[mode:call]] needs [[tool:NAME]]")), true
		}
		return FunctionCall(m["tool"], m["args"]), true
	case name == "slow":
		delay, err := markerDuration(m, "delay", slowDelay)
		if err != nil {
			return badRequest(err), true
		}
		duration, err := markerDuration(m, "duration", slowDuration)
		if err != nil {
			return badRequest(err), true
		}
		return Slow(delay, duration), true
	case strings.HasPrefix(name, "http"):
		status, err := strconv.Atoi(name[len("http"):])
		if err != nil || status < 400 || status > 599 {
			return badRequest(fmt.Errorf("bad marker [[mode:%s]]: want http400 … http599", name)), true
		}
		return HTTPError(status), true
	}
	return badRequest(fmt.Errorf("unknown marker [[mode:%s]]", name)), true
}

// markerDuration reads seconds ("0.25") or a Go duration ("250ms").
func markerDuration(m map[string]string, key string, def time.Duration) (time.Duration, error) {
	v, ok := m[key]
	if !ok {
		return def, nil
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs > 0 {
		return time.Duration(secs * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("bad marker [[%s:%s]]: want positive seconds such as 0.25", key, v)
}

func badRequest(err error) Behavior {
	return Behavior{mode: modeHTTPError, status: 400, text: "fakemodel: " + err.Error()}
}

// withUsageMarker applies a [[usage:IN/CACHED/OUT/REASONING]] or [[usage:none]] marker of
// text to b, whatever decided b; a malformed marker yields an HTTP 400 that says so.
func withUsageMarker(b Behavior, text string) Behavior {
	v, ok := markers(text)["usage"]
	if !ok {
		return b
	}
	if v == "none" {
		return b.NoUsage()
	}
	parts := strings.Split(v, "/")
	var n [4]int64
	if len(parts) != 4 {
		return badRequest(fmt.Errorf("bad marker [[usage:%s]]: want IN/CACHED/OUT/REASONING or none", v))
	}
	for i, p := range parts {
		x, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || x < 0 {
			return badRequest(fmt.Errorf("bad marker [[usage:%s]]: want IN/CACHED/OUT/REASONING or none", v))
		}
		n[i] = x
	}
	return b.WithUsage(Usage{Input: n[0], Cached: n[1], Output: n[2], Reasoning: n[3]})
}
