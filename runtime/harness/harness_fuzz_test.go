package harness

import (
	"bytes"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// Transcript cursors: a page for any cursor is INVALID_ARGUMENT or a slice inside the
// transcript, never a panic.
func FuzzTranscriptCursor(f *testing.F) {
	for _, s := range []string{"", transcriptCursor(1), transcriptCursor(3), transcriptCursor(4), "bXNnOjA", "bXNnOi0x", "bXNnOjAx", "!!"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, cursor string, limit int) {
		st := &transcriptState{Messages: []model.Message{{Role: "user", Text: "a"}, {Role: "assistant", Text: "b"}, {Role: "user", Text: "c"}}}
		msgs, _, err := st.page(limit, cursor)
		if err != nil {
			if !model.IsCode(err, model.CodeInvalidArgument) {
				t.Fatalf("page(%d, %q): %v", limit, cursor, err)
			}
			return
		}
		if len(msgs) > len(st.Messages) {
			t.Fatalf("page of %d from %d messages", len(msgs), len(st.Messages))
		}
	})
}

// Native thread cursors are refused cleanly when not given for that thread.
func FuzzNativeDecodeCursor(f *testing.F) {
	for _, s := range []string{"", "n1.e30", "n1.", "x", "n1.eyJ0IjoidGhyLTEifQ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = nativeDecodeCursor(s, model.ThreadID("019a0000-0000-7000-8000-000000000001"))
	})
}

// /proc/locks lines of any shape parse without panicking.
func FuzzParseProcLocks(f *testing.F) {
	f.Add([]byte("1: FLOCK  ADVISORY  WRITE 1234 08:01:1310730 0 EOF\n2: POSIX  ADVISORY  READ 99 00:2a:17 0 EOF\n"))
	f.Add([]byte("1: FLOCK ADVISORY WRITE x zz:yy:1 0 EOF\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		// pid -1 (an OFD lock) and others that name no process are kept: the caller looks
		// the pid up and finds nothing.
		if n := len(nativeParseProcLocks(data)); n > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d entries from %d lines", n, bytes.Count(data, []byte("\n"))+1)
		}
	})
}
