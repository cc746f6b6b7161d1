package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// event is one Responses API stream event; "type" is also the SSE event name.
type event map[string]any

// sseWriter writes events and flushes each one, so the client sees them as
// they are produced. After the first failed write it writes nothing more.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

func startSSE(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &sseWriter{w: w, rc: http.NewResponseController(w)}
	e.err = e.rc.Flush()
	return e
}

func (e *sseWriter) send(ev event) bool {
	if e.err != nil {
		return false
	}
	data, err := json.Marshal(ev)
	if err != nil {
		panic(err) // events are built here from plain values
	}
	if _, e.err = fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", ev["type"], data); e.err == nil {
		e.err = e.rc.Flush()
	}
	return e.err == nil
}

// DefaultUsage is the usage every response reports unless a behaviour says otherwise.
var DefaultUsage = Usage{Input: 10, Output: 5}

// Usage is what a response reports in response.completed; total is input + output.
type Usage struct{ Input, Cached, Output, Reasoning int64 }

func usage() map[string]any { return DefaultUsage.body() }

func (u Usage) body() map[string]any {
	return map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.Cached},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.Output,
	}
}

// completedResponse is the response of response.completed, with b's usage (none for NoUsage).
func completedResponse(respID string, b Behavior) map[string]any {
	r := map[string]any{"id": respID, "status": "completed"}
	switch {
	case b.noUsage:
	case b.usage != nil:
		r["usage"] = b.usage.body()
	default:
		r["usage"] = usage()
	}
	return r
}

// serve answers one request to /responses with b; n numbers the ids and the
// default reply, body is the parsed request. It reports whether the client
// dropped the stream first.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, b Behavior, n int, userText string, body map[string]any) (disconnected bool) {
	if b.mode == modeShell {
		b = shellStep(b, n, body)
		if b.mode == modeShell {
			return serveShellCall(w, b, n, body)
		}
	}
	if b.mode == modeCall {
		b = callStep(b, n, body)
		if b.mode == modeCall {
			return serveFunctionCall(w, b, n, body)
		}
	}
	if b.mode == modeHTTPError {
		writeHTTPError(w, b)
		return false
	}
	respID := fmt.Sprintf("resp_fake_%d", n)
	msgID := fmt.Sprintf("msg_fake_%d", n)
	delta := func(text string) event {
		return event{"type": "response.output_text.delta", "item_id": msgID, "output_index": 0, "content_index": 0, "delta": text}
	}
	finish := func(e *sseWriter, text string) bool {
		return e.send(event{"type": "response.output_item.done", "item": map[string]any{
			"type": "message", "role": "assistant", "id": msgID, "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
		}}) && e.send(event{"type": "response.completed", "response": completedResponse(respID, b)})
	}

	e := startSSE(w)
	if !e.send(event{"type": "response.created", "response": map[string]any{"id": respID}}) {
		return true
	}
	switch b.mode {
	case modeFailed:
		return !e.send(event{"type": "response.failed", "response": map[string]any{
			"id": respID, "error": map[string]any{"code": "server_error", "message": "fake response.failed"},
		}})
	case modeHang:
		select {
		case <-r.Context().Done():
			return true
		case <-s.done:
			return false
		}
	}

	if !e.send(event{"type": "response.output_item.added", "item": map[string]any{
		"type": "message", "role": "assistant", "id": msgID, "status": "in_progress", "content": []any{},
	}}) {
		return true
	}
	switch b.mode {
	case modeTruncated:
		// Returning ends the body cleanly, so the client sees an orderly end
		// of stream that lacks response.completed.
		return !e.send(delta("partial "))
	case modeSlow:
		return s.slow(r, e, b, delta, finish)
	}

	text := b.text
	if text == "" {
		text = fmt.Sprintf("fake reply #%d to: %s", n, truncate(userText, 80))
	}
	for i, word := range strings.Split(text, " ") {
		if i > 0 {
			word = " " + word
		}
		if !e.send(delta(word)) {
			return true
		}
	}
	return !finish(e, text)
}

func (s *Server) slow(r *http.Request, e *sseWriter, b Behavior, delta func(string) event, finish func(*sseWriter, string) bool) (disconnected bool) {
	delay, duration := b.delay, b.duration
	if delay <= 0 {
		delay = defaultSlowDelay
	}
	if duration <= 0 {
		duration = defaultSlowDuration
	}
	ticker := time.NewTicker(delay)
	defer ticker.Stop()
	end := time.NewTimer(duration)
	defer end.Stop()
	var sent strings.Builder
	for i := 0; ; i++ {
		d := fmt.Sprintf("tick%d ", i)
		sent.WriteString(d)
		if !e.send(delta(d)) {
			return true
		}
		select {
		case <-ticker.C:
			continue
		case <-r.Context().Done():
			return true
		case <-end.C:
		case <-s.done:
		}
		return !finish(e, sent.String())
	}
}

func writeHTTPError(w http.ResponseWriter, b Behavior) {
	msg := b.text
	if msg == "" {
		msg = fmt.Sprintf("fake %d from test server", b.status)
	}
	typ := "server_error"
	if b.status < 500 {
		typ = "invalid_request_error"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(b.status)
	_, _ = w.Write(body)
}

// truncate keeps at most n runes of s.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
