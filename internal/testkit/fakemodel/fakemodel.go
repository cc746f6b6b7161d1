// Package fakemodel is a loopback fake of the OpenAI Responses API
// (POST /v1/responses, streamed as server-sent events) for running real
// Codex turns in tests without a network.
//
// What a request gets is decided, in this order, by the queue filled with
// Server.Enqueue, by markers in the newest user text that does not start with
// '<' (Codex prepends context blobs such as <environment_context>), and by the
// server default (a deterministic reply). Markers:
//
//	[[mode:slow]] [[delay:0.25]] [[duration:2]]   see Slow (seconds or Go durations)
//	[[mode:hang]]  [[mode:truncated]]  [[mode:failed]]  [[mode:http500]] (any 4xx/5xx)
//	[[reply:some text]]                           see Reply
//	[[mode:shell]] [[cmd:echo hi]]                see Shell (the command cannot contain ']')
//	[[mode:call]] [[tool:NAME]] [[args:{"k":1}]]  see FunctionCall (the arguments cannot contain ']')
//	[[usage:100/20/30/5]]  [[usage:none]]         the usage response.completed reports (input/cached/output/reasoning),
//	[[mode:nousage]]                              or none; default DefaultUsage
package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	defaultSlowDelay    = 250 * time.Millisecond
	defaultSlowDuration = 60 * time.Second
	// closeGrace is how long Close lets streams finish on their own before
	// it cuts the connections (a client that stopped reading can block a write).
	closeGrace = 2 * time.Second
	maxBody    = 64 << 20
)

// Request is one recorded HTTP request.
type Request struct {
	N        int       // 1-based arrival number; the N of "fake reply #N" and "resp_fake_N"
	At       time.Time // when it arrived: the gap to the next request times a tool call
	Method   string
	Path     string
	Header   http.Header
	Body     []byte
	JSON     map[string]any // the parsed body; nil when it is not a JSON object
	UserText string         // the newest user text not starting with '<'
	Mode     string         // Behavior.String() of what was served
	// Disconnected reports that the client dropped the stream before the
	// server ended it.
	Disconnected bool
}

// Option configures a Server.
type Option func(*Server)

// WithDefault sets the behaviour used when neither the queue nor a marker
// decides (default: Reply("")).
func WithDefault(b Behavior) Option { return func(s *Server) { s.def = b } }

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	hs  *httptest.Server
	def Behavior

	done      chan struct{} // closed when Close starts; ends slow and hung streams
	closeOnce sync.Once

	mu          sync.Mutex
	queue       []Behavior
	requests    []Request
	disconnects int
	changed     chan struct{} // closed and replaced on every change, for waiters
}

// Start starts a server on 127.0.0.1 and closes it when tb's test ends.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := New(opts...)
	tb.Cleanup(s.Close)
	return s
}

// New starts a server on 127.0.0.1; the caller must Close it.
func New(opts ...Option) *Server {
	s := &Server{
		def:     Reply(""),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// URL is the provider base URL, ending in /v1 (Codex appends /responses).
func (s *Server) URL() string { return s.hs.URL + "/v1" }

// Close ends in-flight slow and hung streams, stops the server and waits for
// its handlers. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		closed := make(chan struct{})
		go func() {
			s.hs.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(closeGrace):
			s.hs.CloseClientConnections()
			<-closed
		}
	})
}

// Enqueue appends behaviours used, first in first out, by the next requests
// to /responses, ahead of markers and the default.
func (s *Server) Enqueue(bs ...Behavior) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, bs...)
}

// Requests returns a copy of the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot()
}

// WaitRequests waits until at least n requests have arrived and returns them.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	var got []Request
	err := s.wait(ctx, func() bool {
		got = s.snapshot()
		return len(got) >= n
	})
	if err != nil {
		return got, fmt.Errorf("fakemodel: %d of %d requests arrived: %w", len(got), n, err)
	}
	return got, nil
}

// Disconnects counts the streams the client dropped before the server ended them.
func (s *Server) Disconnects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disconnects
}

// WaitDisconnects waits until Disconnects() >= n.
func (s *Server) WaitDisconnects(ctx context.Context, n int) error {
	var got int
	err := s.wait(ctx, func() bool {
		got = s.disconnects
		return got >= n
	})
	if err != nil {
		return fmt.Errorf("fakemodel: %d of %d disconnects: %w", got, n, err)
	}
	return nil
}

// snapshot copies the requests; s.mu must be held.
func (s *Server) snapshot() []Request {
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// wait calls cond with s.mu held after every change until it holds.
func (s *Server) wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// notify wakes the waiters; s.mu must be held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	raw, readErr := io.ReadAll(io.LimitReader(r.Body, maxBody))
	rec := Request{At: at, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: raw}
	var body responsesBody
	jsonErr := json.Unmarshal(raw, &rec.JSON)
	if jsonErr == nil {
		jsonErr = json.Unmarshal(raw, &body)
	}

	var fixed *Behavior // decided by the request itself rather than by the script
	switch {
	case r.Method != http.MethodPost || !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/responses"):
		b := HTTPError(http.StatusNotFound)
		b.text = "fakemodel: only POST …/responses is served"
		fixed = &b
	case readErr != nil:
		b := badRequest(fmt.Errorf("reading body: %v", readErr))
		fixed = &b
	case r.Header.Get("Content-Encoding") != "" && r.Header.Get("Content-Encoding") != "identity":
		b := badRequest(fmt.Errorf("compressed request bodies (%s) are not supported", r.Header.Get("Content-Encoding")))
		fixed = &b
	case jsonErr != nil:
		b := badRequest(fmt.Errorf("request body is not a Responses API JSON object: %v", jsonErr))
		fixed = &b
	default:
		rec.UserText = body.userText()
	}

	s.mu.Lock()
	rec.N = len(s.requests) + 1
	var b Behavior
	if fixed != nil {
		b = *fixed
	} else {
		b = s.pick(rec.UserText)
	}
	rec.Mode = b.String()
	idx := len(s.requests)
	s.requests = append(s.requests, rec)
	s.notify()
	s.mu.Unlock()

	if s.serve(w, r, b, rec.N, rec.UserText, rec.JSON) {
		s.mu.Lock()
		s.requests[idx].Disconnected = true
		s.disconnects++
		s.notify()
		s.mu.Unlock()
	}
}

// pick chooses the behaviour for a request to /responses; s.mu must be held
// so that queue order matches arrival order.
func (s *Server) pick(userText string) Behavior {
	if len(s.queue) > 0 {
		b := s.queue[0]
		s.queue = s.queue[1:]
		return b
	}
	if b, ok := fromMarkers(userText, defaultSlowDelay, defaultSlowDuration); ok {
		return withUsageMarker(b, userText)
	}
	return withUsageMarker(s.def, userText)
}

// responsesBody is the part of a Responses API request the fake reads.
type responsesBody struct {
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"input"`
}

// userText returns the newest user text that does not start with '<'; Codex
// sends its context blobs (<environment_context>, AGENTS.md, …) as user
// messages too, and the script belongs to what the user typed.
func (b responsesBody) userText() string {
	last := ""
	for _, item := range b.Input {
		if item.Role != "user" || (item.Type != "" && item.Type != "message") {
			continue
		}
		for _, t := range contentTexts(item.Content) {
			if !strings.HasPrefix(strings.TrimLeft(t, " \t\r\n"), "<") {
				last = t
			}
		}
	}
	return last
}

// contentTexts returns the input_text parts of a message content, which the
// Responses API allows to be a plain string as well as a list of parts.
func contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		if p.Type == "input_text" {
			out = append(out, p.Text)
		}
	}
	return out
}
