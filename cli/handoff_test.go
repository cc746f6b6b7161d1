package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// createFromFile runs `handoff create --file name` with stdin; the file is refused before any
// runtime is reached.
func createFromFile(t *testing.T, name string, stdin []byte) error {
	t.Helper()
	cmd := newHandoffCreateCmd()
	cmd.SetArgs([]string{"--file", name})
	cmd.SetIn(bytes.NewReader(stdin))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("handoff create --file %s still reading after 10s", name)
		return nil
	}
}

// A handoff on stdin over the limit is refused for its size, not as JSON cut short.
func TestHandoffCreateStdinOverTheLimitNamesTheLimit(t *testing.T) {
	t.Parallel()
	big := []byte(`{"title":"` + strings.Repeat("a", model.MaxHandoffBytes) + `"}`)
	err := createFromFile(t, "-", big)
	if !model.IsCode(err, model.CodeInvalidArgument) || !strings.Contains(err.Error(), "262144") || strings.Contains(err.Error(), "JSON") {
		t.Fatalf("oversized stdin: %v", err)
	}
}

// A --file that never ends (a FIFO whose writer stays, like /dev/zero or a growing log) is
// read only up to the limit: before, the whole stream was read into memory, without end.
func TestHandoffCreateFileThatNeverEndsIsRefusedAtTheLimit(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "endless")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Opened read-write, the writer end never closes, so a reader never sees EOF.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	go func() {
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	err = createFromFile(t, fifo, nil)
	if !model.IsCode(err, model.CodeInvalidArgument) || !strings.Contains(err.Error(), "262144") {
		t.Fatalf("endless file: %v", err)
	}
}
