package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// runGuard feeds input through the guard and returns what reached the SDK and what the guard
// answered itself.
func runGuard(t testing.TB, input string, limit int) (passed, answered string) {
	pr, pw := io.Pipe()
	var out bytes.Buffer
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(pr)
		done <- string(b)
	}()
	guard(strings.NewReader(input), pw, &lineWriter{w: &out}, limit)
	return <-done, out.String()
}

func TestGuardRefusesAndKeepsGoing(t *testing.T) {
	t.Parallel()
	ok := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	input := ok + "\n{oops\n\n" + `{"jsonrpc":"2.0","id":"a","method":5}` + "\n[1]\n" + `{"x":"` + strings.Repeat("y", 5000) + `"}` + "\r\n" + ok + "\r\n"
	passed, answered := runGuard(t, input, 1000)
	if passed != ok+"\n"+ok+"\n" {
		t.Fatalf("passed %q", passed)
	}
	var codes []float64
	var ids []any
	for _, line := range strings.Split(strings.TrimSpace(answered), "\n") {
		var m struct {
			ID    any `json:"id"`
			Error struct{ Code float64 }
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		codes, ids = append(codes, m.Error.Code), append(ids, m.ID)
	}
	if len(codes) != 4 || codes[0] != -32700 || codes[1] != -32600 || ids[1] != "a" || codes[2] != -32600 || codes[3] != -32600 {
		t.Fatalf("answers %v %v\n%s", codes, ids, answered)
	}
	if !strings.Contains(answered, "5008 bytes refused before decoding") {
		t.Fatalf("oversized answer %s", answered)
	}
}

func FuzzGuard(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	f.Add("{\n[\n\r\n" + strings.Repeat("z", 300))
	f.Add(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`)
	f.Fuzz(func(t *testing.T, input string) {
		passed, answered := runGuard(t, input, 256)
		for _, line := range strings.Split(passed, "\n") {
			if line != "" && (len(line) > 256 || !json.Valid([]byte(line))) {
				t.Fatalf("passed %q", line)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(answered), "\n") {
			if line != "" && !json.Valid([]byte(line)) {
				t.Fatalf("answered %q", line)
			}
		}
	})
}
