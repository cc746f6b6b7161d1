package fakemodel_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// body builds a request shaped like Codex's: instructions, context blobs as
// user messages starting with '<', then the conversation.
func body(userTexts ...string) []byte {
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{
			map[string]any{"type": "input_text", "text": "You are Codex. [[mode:http500]]"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}}},
	}
	for _, t := range userTexts {
		input = append(input, map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": t}}})
	}
	b, err := json.Marshal(map[string]any{"model": "mock-model", "stream": true, "input": input})
	if err != nil {
		panic(err)
	}
	return b
}

type sseEvent struct {
	Name string
	Data map[string]any
}

// stream is a response being read event by event in the background.
type stream struct {
	resp   *http.Response
	events chan sseEvent
	err    error // valid once events is closed
}

func post(t *testing.T, ctx context.Context, url string, payload []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/responses", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Originator", "fakemodel_test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func open(t *testing.T, ctx context.Context, s *fakemodel.Server, payload []byte) *stream {
	t.Helper()
	resp := post(t, ctx, s.URL(), payload)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content-type %q", ct)
	}
	st := &stream{resp: resp, events: make(chan sseEvent, 1000)}
	go func() {
		defer close(st.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data); err != nil {
					st.err = fmt.Errorf("bad data line %q: %v", line, err)
					return
				}
			case line == "":
				if ev.Name != ev.Data["type"] {
					st.err = fmt.Errorf("event name %q but data type %v", ev.Name, ev.Data["type"])
					return
				}
				st.events <- ev
				ev = sseEvent{}
			default:
				st.err = fmt.Errorf("unexpected line %q", line)
				return
			}
		}
		st.err = sc.Err()
	}()
	return st
}

// next returns the next event, or ok=false when the stream ended.
func (st *stream) next(t *testing.T, timeout time.Duration) (ev sseEvent, ok bool) {
	t.Helper()
	select {
	case ev, ok := <-st.events:
		return ev, ok
	case <-time.After(timeout):
		t.Fatalf("no event within %v", timeout)
		return sseEvent{}, false
	}
}

// all reads the stream to its end and fails the test on a read error.
func (st *stream) all(t *testing.T) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		ev, ok := st.next(t, 10*time.Second)
		if !ok {
			if st.err != nil {
				t.Fatalf("stream error: %v", st.err)
			}
			return out
		}
		out = append(out, ev)
	}
}

func names(evs []sseEvent) string {
	var out []string
	for i, ev := range evs {
		if i > 0 && ev.Name == "response.output_text.delta" && evs[i-1].Name == ev.Name {
			continue
		}
		out = append(out, ev.Name)
	}
	return strings.Join(out, ",")
}

// replyText checks the deltas add up to the output_item.done text and returns it.
func replyText(t *testing.T, evs []sseEvent) string {
	t.Helper()
	var deltas strings.Builder
	final := ""
	for _, ev := range evs {
		switch ev.Name {
		case "response.output_text.delta":
			deltas.WriteString(ev.Data["delta"].(string))
		case "response.output_item.done":
			item := ev.Data["item"].(map[string]any)
			final = item["content"].([]any)[0].(map[string]any)["text"].(string)
		}
	}
	if deltas.String() != final {
		t.Fatalf("deltas %q != final text %q", deltas.String(), final)
	}
	return final
}

const fullReply = "response.created,response.output_item.added,response.output_text.delta,response.output_item.done,response.completed"

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestDefaultReplyAndRecording(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	for i, text := range []string{"hello there", "again"} {
		evs := open(t, ctx, s, body(text)).all(t)
		if got := names(evs); got != fullReply {
			t.Fatalf("events %s\nwant %s", got, fullReply)
		}
		want := fmt.Sprintf("fake reply #%d to: %s", i+1, text)
		if got := replyText(t, evs); got != want {
			t.Fatalf("reply %q, want %q", got, want)
		}
		completed := evs[len(evs)-1].Data["response"].(map[string]any)
		if completed["id"] != fmt.Sprintf("resp_fake_%d", i+1) || completed["usage"] == nil {
			t.Fatalf("response.completed = %v", completed)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(reqs))
	}
	r := reqs[1]
	if r.N != 2 || r.Method != http.MethodPost || r.Path != "/v1/responses" || r.UserText != "again" ||
		r.Mode != "reply" || r.Disconnected || r.JSON["model"] != "mock-model" ||
		r.Header.Get("Originator") != "fakemodel_test" || !bytes.Contains(r.Body, []byte(`"again"`)) {
		t.Fatalf("recorded %+v", r)
	}
	if !strings.HasSuffix(s.URL(), "/v1") || !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL() = %q", s.URL())
	}
}

func TestUserTextIsNewestNotStartingWithAngle(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	payload := body("[[reply:old]] first", "second", "  <user_instructions>\n[[mode:hang]]</user_instructions>")
	if got := replyText(t, open(t, ctx, s, payload).all(t)); got != "fake reply #1 to: second" {
		t.Fatalf("reply %q", got)
	}
	// The Responses API also allows a message content to be a plain string.
	raw := []byte(`{"input":[{"type":"message","role":"user","content":"plain [[reply:from string]]"},` +
		`{"type":"function_call_output","call_id":"c","output":"[[mode:failed]]"}]}`)
	if got := replyText(t, open(t, ctx, s, raw).all(t)); got != "from string" {
		t.Fatalf("reply %q", got)
	}
	if got := s.Requests()[1].UserText; got != "plain [[reply:from string]]" {
		t.Fatalf("UserText %q", got)
	}
}

func TestMarkers(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	tests := []struct {
		text, mode, events, reply string
	}{
		{"say [[reply:hi there  you]]", "reply", fullReply, "hi there  you"},
		{"[[mode:ok]]", "reply", fullReply, "fake reply #2 to: [[mode:ok]]"},
		{"[[mode:failed]]", "failed", "response.created,response.failed", ""},
		{"[[mode:truncated]]", "truncated", "response.created,response.output_item.added,response.output_text.delta", ""},
		{"[[mode:slow]] [[delay:0.01]] [[duration:50ms]]", "slow", fullReply, ""},
		{"[[mode:slow]] [[delay:1]] [[mode:hang]] [[mode:slow]] [[duration:0.01]]", "slow", fullReply, "tick0 "},
	}
	for _, tc := range tests {
		evs := open(t, ctx, s, body("[[mode:http500]]", tc.text)).all(t)
		if got := names(evs); got != tc.events {
			t.Errorf("%q: events %s\nwant %s", tc.text, got, tc.events)
		}
		if tc.reply != "" {
			if got := replyText(t, evs); got != tc.reply {
				t.Errorf("%q: reply %q, want %q", tc.text, got, tc.reply)
			}
		}
	}
	for i, r := range s.Requests() {
		if r.Mode != tests[i].mode {
			t.Errorf("%q: recorded mode %q, want %q", tests[i].text, r.Mode, tests[i].mode)
		}
	}
}

func TestBadMarkersAnswer400WithReason(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	for text, reason := range map[string]string{
		"[[mode:bogus]]":                   "unknown marker [[mode:bogus]]",
		"[[mode:http200]]":                 "bad marker [[mode:http200]]",
		"[[mode:slow]] [[delay:soon]]":     "bad marker [[delay:soon]]",
		"[[mode:slow]] [[duration:-1]]":    "bad marker [[duration:-1]]",
		"[[mode:http5000]] [[reply:nope]]": "bad marker [[mode:http5000]]",
	} {
		resp := post(t, ctx, s.URL(), body(text))
		msg := errorMessage(t, resp)
		if resp.StatusCode != 400 || !strings.Contains(msg, reason) {
			t.Errorf("%q: %d %q, want 400 with %q", text, resp.StatusCode, msg, reason)
		}
	}
}

func errorMessage(t *testing.T, resp *http.Response) string {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content-type %q", ct)
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.Error.Type == "" {
		t.Fatalf("error without type: %+v", e)
	}
	return e.Error.Message
}

func TestHTTPErrors(t *testing.T) {
	s := fakemodel.Start(t)
	ctx := ctxFor(t, 10*time.Second)
	codes := []int{400, 401, 429, 500, 503}
	for _, c := range codes {
		s.Enqueue(fakemodel.HTTPError(c))
	}
	for _, c := range codes {
		resp := post(t, ctx, s.URL(), body("hi"))
		if msg := errorMessage(t, resp); resp.StatusCode != c || msg != fmt.Sprintf("fake %d from test server", c) {
			t.Errorf("got %d %q, want %d", resp.StatusCode, msg, c)
		}
	}
	resp := post(t, ctx, s.URL(), body("[[mode:http429]]"))
	if errorMessage(t, resp); resp.StatusCode != 429 {
		t.Errorf("marker http429: status %d", resp.StatusCode)
	}
	for i, r := range s.Requests() {
		if want := fmt.Sprintf("http%d", append(codes, 429)[i]); r.Mode != want {
			t.Errorf("request %d mode %q, want %q", i+1, r.Mode, want)
		}
	}
}

func TestTruncatedEndsWithoutCompleted(t *testing.T) {
	s := fakemodel.Start(t)
	s.Enqueue(fakemodel.Truncated())
	evs := open(t, ctxFor(t, 10*time.Second), s, body("hi")).all(t)
	if got, want := names(evs), "response.created,response.output_item.added,response.output_text.delta"; got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
}

func TestFailedEvent(t *testing.T) {
	s := fakemodel.Start(t)
	s.Enqueue(fakemodel.Failed())
	evs := open(t, ctxFor(t, 10*time.Second), s, body("hi")).all(t)
	if got := names(evs); got != "response.created,response.failed" {
		t.Fatalf("events %s", got)
	}
	e := evs[1].Data["response"].(map[string]any)["error"].(map[string]any)
	if e["message"] != "fake response.failed" || e["code"] != "server_error" {
		t.Fatalf("error %v", e)
	}
}

func TestQueueBeatsMarkersThenDefault(t *testing.T) {
	s := fakemodel.Start(t, fakemodel.WithDefault(fakemodel.Reply("default text")))
	s.Enqueue(fakemodel.Reply("queued"), fakemodel.Failed())
	ctx := ctxFor(t, 10*time.Second)
	if got := replyText(t, open(t, ctx, s, body("[[mode:http500]]")).all(t)); got != "queued" {
		t.Fatalf("first reply %q", got)
	}
	if got := names(open(t, ctx, s, body("[[reply:marker]]")).all(t)); got != "response.created,response.failed" {
		t.Fatalf("second: %s", got)
	}
	if got := replyText(t, open(t, ctx, s, body("[[reply:marker]]")).all(t)); got != "marker" {
		t.Fatalf("third reply %q", got)
	}
	if got := replyText(t, open(t, ctx, s, body("plain")).all(t)); got != "default text" {
		t.Fatalf("fourth reply %q", got)
	}
}

func TestSlowCompletesAfterDuration(t *testing.T) {
	s := fakemodel.Start(t)
	s.Enqueue(fakemodel.Slow(10*time.Millisecond, 150*time.Millisecond))
	start := time.Now()
	evs := open(t, ctxFor(t, 10*time.Second), s, body("hi")).all(t)
	elapsed := time.Since(start)
	if got := names(evs); got != fullReply {
		t.Fatalf("events %s", got)
	}
	text := replyText(t, evs)
	if n := strings.Count(text, "tick"); n < 3 || !strings.HasPrefix(text, "tick0 tick1 tick2 ") {
		t.Fatalf("final text %q", text)
	}
	if elapsed < 150*time.Millisecond || elapsed > 5*time.Second {
		t.Fatalf("took %v for a 150ms stream", elapsed)
	}
	if s.Disconnects() != 0 {
		t.Fatalf("disconnects = %d", s.Disconnects())
	}
}

func TestSlowStopsWhenClientCancels(t *testing.T) {
	s := fakemodel.Start(t)
	s.Enqueue(fakemodel.Slow(10*time.Millisecond, time.Minute))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := open(t, ctx, s, body("hi"))
	deltas := 0
	for deltas < 3 {
		if ev, _ := st.next(t, 5*time.Second); ev.Name == "response.output_text.delta" {
			deltas++
		}
	}
	cancel()
	wctx := ctxFor(t, 5*time.Second)
	if err := s.WaitDisconnects(wctx, 1); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if !r.Disconnected || r.Mode != "slow" || s.Disconnects() != 1 {
		t.Fatalf("recorded %+v, disconnects %d", r, s.Disconnects())
	}
}

func TestHangIsSilentUntilClientCancels(t *testing.T) {
	s := fakemodel.Start(t)
	s.Enqueue(fakemodel.Hang())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := open(t, ctx, s, body("hi"))
	if ev, _ := st.next(t, 5*time.Second); ev.Name != "response.created" {
		t.Fatalf("first event %q", ev.Name)
	}
	select {
	case ev, ok := <-st.events:
		t.Fatalf("hang sent more: %q (open=%v)", ev.Name, ok)
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	if err := s.WaitDisconnects(ctxFor(t, 5*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	if r := s.Requests()[0]; !r.Disconnected || r.Mode != "hang" {
		t.Fatalf("recorded %+v", r)
	}
}

func TestCloseEndsInFlightStreams(t *testing.T) {
	s := fakemodel.New()
	defer s.Close()
	s.Enqueue(fakemodel.Slow(10*time.Millisecond, time.Hour), fakemodel.Hang())
	ctx := ctxFor(t, 10*time.Second)
	slow := open(t, ctx, s, body("a"))
	slow.next(t, 5*time.Second)
	hang := open(t, ctx, s, body("b"))
	hang.next(t, 5*time.Second)

	start := time.Now()
	s.Close()
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Close took %v", d)
	}
	if got := names(slow.all(t)); !strings.HasSuffix(got, "response.output_item.done,response.completed") {
		t.Fatalf("slow stream after Close: %s", got)
	}
	if got := hang.all(t); len(got) != 0 {
		t.Fatalf("hang stream after Close: %s", names(got))
	}
	if s.Disconnects() != 0 {
		t.Fatalf("disconnects = %d, want 0 (the server ended the streams)", s.Disconnects())
	}
	s.Close() // idempotent
}

func TestNotFoundAndUnparsableBodies(t *testing.T) {
	s := fakemodel.Start(t)
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("GET /models: %d", resp.StatusCode)
	}
	bad := post(t, ctxFor(t, 10*time.Second), s.URL(), []byte("{nope"))
	if msg := errorMessage(t, bad); bad.StatusCode != 400 || !strings.Contains(msg, "not a Responses API JSON object") {
		t.Fatalf("bad body: %d %q", bad.StatusCode, msg)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Mode != "http404" || reqs[0].Method != "GET" || reqs[1].Mode != "http400" || reqs[1].JSON != nil {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestWaitRequests(t *testing.T) {
	s := fakemodel.Start(t)
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.WaitRequests(short, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitRequests on an idle server: %v", err)
	}

	// Concurrent requests each get their own number, and the waiter sees them all.
	const n = 8
	ctx := ctxFor(t, 10*time.Second)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/responses", bytes.NewReader(body(fmt.Sprint("c", i))))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	reqs, err := s.WaitRequests(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, r := range reqs {
		seen[r.N] = true
	}
	if len(reqs) != n || len(seen) != n || !seen[1] || !seen[n] {
		t.Fatalf("numbers %v", seen)
	}
}
