package cli

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer a command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `approvals --follow` follows the home's runtime through a restart, as the app does: the
// closed event stream of the runtime that went away is not the end, and the list is printed
// again from the next one, since what changed meanwhile was not seen.
func TestApprovalsFollowGoesOnAcrossARuntimeRestart(t *testing.T) {
	t.Parallel()
	home := operatorHome(t, "/nonexistent/codex", t.TempDir())
	environ := append(os.Environ(), "CODEXHOST_CODEX_BIN=/nonexistent/codex")
	first := serveRuntime(t, home, environ)

	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- executeEnv([]string{"approvals", "--follow", "--json", "--timeout-ms", "8000"}, &out, &errOut, testEnv(t))
	}()
	lists := func() int { return strings.Count(out.String(), `"approvals":`) }
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%s; stdout %q, stderr %q", what, out.String(), errOut.String())
			}
		}
	}
	waitUntil("no first list", func() bool { return lists() == 1 })

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	serveRuntime(t, home, environ)
	waitUntil("no list from the runtime after the restart", func() bool { return lists() == 2 })
	select {
	case code := <-done:
		t.Fatalf("the follow ended (%d) before its --timeout-ms: %s", code, errOut.String())
	default:
	}
	// It ends at its --timeout-ms, counted from its start, before the runtime does.
	if code := <-done; code != 0 {
		t.Fatalf("the follow ended with %d: %s", code, errOut.String())
	}
}
