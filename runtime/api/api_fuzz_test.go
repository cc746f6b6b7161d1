package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"unicode/utf8"
)

// The seed corpora name the shapes each parser meets: well-formed input, the edges of its
// rules, and the damage seen from hostile clients.

func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"", "\n", "{}\n", "a\nb\n", strings.Repeat("x", 100) + "\n", "no newline", "\n\n\n"} {
		f.Add([]byte(s), uint16(64))
	}
	f.Fuzz(func(t *testing.T, data []byte, max uint16) {
		limit := int(max%512) + 1
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		var scratch []byte
		for {
			line, err := readLine(br, limit, &scratch)
			if len(line) > limit {
				t.Fatalf("line of %d bytes over the limit %d", len(line), limit)
			}
			if err != nil {
				return
			}
		}
	})
}

func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{"unix:///tmp/rt.sock", "tcp://127.0.0.1:7777", "tcp://[::1]:1", "tcp://example.com:80", "unix://relative", "http://x", "", "tcp://127.0.0.1", "unix://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		network, addr, err := ParseEndpoint(s)
		if err != nil {
			return
		}
		if (network != "unix" && network != "tcp") || addr == "" {
			t.Fatalf("ParseEndpoint(%q) = %q, %q", s, network, addr)
		}
	})
}

// fuzzHandler answers every method at once; "auth" token "t" is a client.
type fuzzHandler struct{}

func (fuzzHandler) Authenticate(token string) (Caller, bool) {
	return Caller{Kind: CallerClient, Client: "fuzz"}, token == "t"
}

func (fuzzHandler) Handle(_ context.Context, _ Caller, method string, params json.RawMessage) (any, error) {
	if method == "echo" {
		return params, nil
	}
	return nil, ErrUnknownMethod
}

func (fuzzHandler) Subscribe(context.Context, func(Event)) {}

func (fuzzHandler) SubscribeCaller(context.Context, Caller, func(Event)) {}

func (fuzzHandler) Authorize(Caller, string) error { return nil }

// Every reply the server writes for a request line is valid UTF-8 JSON, authenticated or not.
func FuzzServerHandleLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"t"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"echo","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":null,"method":"echo"}`,
		`{"jsonrpc":"2.0","method":"echo"}`,
		`{"jsonrpc":"1.0","id":1,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":{},"method":"echo"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"echo\"}",
		`GET / HTTP/1.1`, `[]`, `null`, `{"id":1e999}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, line []byte, authed bool) {
		var req wireRequest
		if json.Unmarshal(line, &req) == nil && req.Method == MethodEventsSubscribe {
			t.Skip("a subscription writes until its connection ends")
		}
		s := NewServer(fuzzHandler{}, ServerOptions{})
		defer s.Close()
		server, client := net.Pipe()
		replies := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(client); replies <- b }()
		ctx, cancel := context.WithCancel(s.ctx)
		c := &serverConn{s: s, nc: server, endpoint: "fuzz", ctx: ctx, cancel: cancel}
		if authed {
			c.caller = Caller{Kind: CallerClient, Client: "fuzz"}
			c.authed.Store(true)
		}
		c.handleLine(line)
		s.wg.Wait()
		c.close()
		out := <-replies
		for _, l := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			if !utf8.Valid(l) || !json.Valid(l) {
				t.Fatalf("reply to %q is not valid UTF-8 JSON: %q", line, l)
			}
		}
	})
}

// The client's reader takes any line from a runtime without panicking, and an answer reaches
// the call waiting for its id.
func FuzzClientDispatch(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m","data":{"code":"THREAD_BUSY","message":"busy"}}}`,
		`{"jsonrpc":"2.0","method":"event","params":{"type":"thread.status","thread":"t"}}`,
		`{"jsonrpc":"2.0","method":"event","params":{"request":1,"type":"x"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}`,
		`{"id":"1"}`, `{}`, `not json`, `{"id":18446744073709551616}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c := &Client{endpoint: "fuzz", pending: map[uint64]chan callResult{}, progress: map[uint64]*callEvents{},
			subs: map[*subscription]struct{}{}, readerDone: make(chan struct{})}
		waiting := make(chan callResult, 1)
		c.pending[1] = waiting
		_ = c.dispatch(line)
	})
}
