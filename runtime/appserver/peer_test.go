package appserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a scripted JSON-RPC peer (a real child process speaking the App
// Server's framing) when CODEXHOST_TEST_PEER names a mode. It exercises what the real App
// Server cannot be made to do on demand: garbage lines, silence, colliding ids, sudden death.
func TestMain(m *testing.M) {
	if mode := os.Getenv("CODEXHOST_TEST_PEER"); mode != "" {
		runPeer(mode, os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type peerMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// runPeer serves one client. Methods:
//
//	initialize        → result (unless mode "noinit")
//	echo              → result = params
//	env               → result = this process's environment
//	never             → no reply
//	die               → exit 3 at once
//	notify {n}        → n notifications "tick" (params {"i":k}), then result
//	collide           → a server request whose id equals the client's id, then result
//	garbage           → malformed lines, then result
//	stderr            → a line on stderr, then result
func runPeer(mode string, in io.Reader, out io.Writer) {
	w := bufio.NewWriter(out)
	send := func(v any) {
		b, _ := json.Marshal(v)
		w.Write(b)
		w.WriteByte('\n')
		w.Flush()
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m peerMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue
		}
		if m.Method == "" { // a reply to our server request
			send(map[string]any{"method": "reply/seen", "params": json.RawMessage(sc.Bytes())})
			continue
		}
		if len(m.ID) == 0 {
			continue // client notification
		}
		reply := func(result any) { send(map[string]any{"id": m.ID, "result": result}) }
		switch m.Method {
		case "initialize":
			if mode == "noinit" {
				continue
			}
			reply(map[string]any{"userAgent": "peer/1", "codexHome": "/nowhere", "platformFamily": "unix", "platformOs": "linux"})
		case "echo":
			reply(m.Params)
		case "env":
			reply(os.Environ())
		case "never":
		case "die":
			os.Exit(3)
		case "notify":
			var p struct{ N int }
			_ = json.Unmarshal(m.Params, &p)
			for i := 0; i < p.N; i++ {
				send(map[string]any{"method": "tick", "params": map[string]int{"i": i}, "emittedAtMs": 1})
			}
			reply(map[string]int{"sent": p.N})
		case "collide":
			send(map[string]any{"id": m.ID, "method": "item/commandExecution/requestApproval", "params": map[string]string{"command": "rm -rf /"}})
			reply("ok")
		case "garbage":
			fmt.Fprintln(w, "this is not json")
			fmt.Fprintln(w, `{"truncated": `)
			fmt.Fprintln(w, `[1,2,3]`)
			fmt.Fprintln(w, `{}`)
			fmt.Fprintln(w, `{"id":"not-a-number","result":1}`)
			w.Flush()
			reply("after garbage")
		case "stderr":
			fmt.Fprintln(os.Stderr, "peer says: something on stderr")
			reply("ok")
		default:
			send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32600, "message": "unknown method " + m.Method}})
		}
	}
}

// startPeer starts the test binary as a peer in the given mode.
func startPeer(t testing.TB, mode string, extraEnv ...string) (*Client, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The race runtime sleeps a second at exit unless told not to.
	env := append([]string{"CODEXHOST_TEST_PEER=" + mode, "GORACE=atexit_sleep_ms=0"}, extraEnv...)
	cfg := Config{Bin: exe, Env: env, StderrLog: t.TempDir() + "/app-server.log", InitTimeout: 5 * time.Second, RequestTimeout: 5 * time.Second}
	// The "app-server" argument is ignored: TestMain serves the peer before flags are parsed.
	c, err := Start(context.Background(), cfg)
	if c != nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// pipePeer connects a client to an in-process peer over pipes: the same reader, writer and
// dispatch as with a child process, without process start-up in the measurement.
func pipePeer(t testing.TB) *Client {
	t.Helper()
	c := newClient(Config{})
	clientToPeerR, clientToPeerW := io.Pipe()
	peerToClientR, peerToClientW := io.Pipe()
	go func() {
		runPeer("echo", clientToPeerR, peerToClientW)
		peerToClientW.Close()
	}()
	p := &process{stdin: clientToPeerW, pending: map[int64]chan rpcResult{}, done: make(chan struct{})}
	if err := c.attach(context.Background(), p, peerToClientR); err != nil {
		t.Fatal(err)
	}
	c.proc = p
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func envHas(env []string, prefix string) bool {
	for _, e := range env {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}
