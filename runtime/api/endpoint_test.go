package api

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

func TestParseEndpoint(t *testing.T) {
	good := []struct{ in, network, addr string }{
		{"unix:///home/u/.codexhost/runtime.sock", "unix", "/home/u/.codexhost/runtime.sock"},
		{"unix:///Users/Jane Doe/.codexhost/s", "unix", "/Users/Jane Doe/.codexhost/s"},
		{"tcp://127.0.0.1:7777", "tcp", "127.0.0.1:7777"},
		{"tcp://[::1]:80", "tcp", "[::1]:80"},
		{"tcp://localhost:65535", "tcp", "localhost:65535"},
	}
	for _, g := range good {
		n, a, err := ParseEndpoint(g.in)
		if err != nil || n != g.network || a != g.addr {
			t.Errorf("ParseEndpoint(%q) = %q, %q, %v; want %q, %q", g.in, n, a, err, g.network, g.addr)
		}
	}
	bad := []string{
		"", "/abs/path", "unix://relative/path", "unix://", "unix:/x", "http://127.0.0.1:80",
		"tcp://127.0.0.1", "tcp://:80", "tcp://127.0.0.1:0", "tcp://127.0.0.1:70000",
		"tcp://127.0.0.1:http", "tcp://127.0.0.1:80/path", "UNIX:///x",
	}
	for _, in := range bad {
		_, _, err := ParseEndpoint(in)
		if !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("ParseEndpoint(%q) error = %v, want INVALID_ARGUMENT", in, err)
			continue
		}
		me := model.AsError(err)
		if !strings.Contains(me.Message, "unix:///absolute/path/to/socket") || !strings.Contains(me.Message, "tcp://HOST:PORT") {
			t.Errorf("ParseEndpoint(%q) message %q does not name the accepted forms", in, me.Message)
		}
	}
}

func TestEndpointRoundTrip(t *testing.T) {
	for _, ep := range []string{UnixEndpoint("/tmp/x y/rt.sock"), TCPEndpoint("127.0.0.1:9")} {
		n, a, err := ParseEndpoint(ep)
		if err != nil {
			t.Fatalf("ParseEndpoint(%q): %v", ep, err)
		}
		var back string
		if n == "unix" {
			back = UnixEndpoint(a)
		} else {
			back = TCPEndpoint(a)
		}
		if back != ep {
			t.Errorf("round trip of %q gave %q", ep, back)
		}
	}
}

func TestLoopbackListenAddr(t *testing.T) {
	ok := map[string]string{
		"127.0.0.1:0":          "127.0.0.1:0",
		"127.1.2.3:80":         "127.1.2.3:80",
		"localhost:8080":       "127.0.0.1:8080",
		"[::1]:0":              "[::1]:0",
		"[::ffff:127.0.0.1]:5": "127.0.0.1:5",
	}
	for in, want := range ok {
		got, err := loopbackListenAddr(in)
		if err != nil || got != want {
			t.Errorf("loopbackListenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{":0", "0.0.0.0:0", "[::]:0", "192.168.1.10:80", "example.com:80", "127.0.0.1", "127.0.0.1:x", "[fe80::1%lo]:0"} {
		_, err := loopbackListenAddr(in)
		if !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("loopbackListenAddr(%q) error = %v, want INVALID_ARGUMENT", in, err)
		}
	}
}
