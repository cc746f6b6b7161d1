package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesPrivatelyAndAFailedFillKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := Write(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	st, _ := os.Stat(path)
	if err != nil || string(b) != "two" || st.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v: %v", b, st.Mode(), err)
	}
	boom := errors.New("boom")
	if err := WriteFunc(path, func(w io.Writer) error { _, _ = w.Write([]byte("half")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("failed fill: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}
