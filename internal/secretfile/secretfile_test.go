package secretfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func readTrimmed(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// Processes racing to make the secret all read the one value that won, kept 0600.
func TestConcurrentCreatorsAgreeOnOneSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key")
	var n atomic.Int64
	fresh := func() string { return fmt.Sprintf("secret-%d", n.Add(1)) }
	got := make([]string, 16)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := ReadOrCreate(path, fresh, readTrimmed)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	wg.Wait()
	for _, v := range got {
		if v != got[0] || v == "" {
			t.Fatalf("creators read different secrets: %v", got)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", st.Mode(), err)
	}
	again, err := ReadOrCreate(path, fresh, readTrimmed)
	if err != nil || again != got[0] {
		t.Fatalf("a later read: %q %v", again, err)
	}
}

// A read that fails otherwise than "not there" is returned as it is, and nothing is made; a
// home where the file cannot be created says so.
func TestReadErrorsPassAndCreateFailuresAreTold(t *testing.T) {
	dir := t.TempDir()
	damaged := errors.New("damaged")
	_, err := ReadOrCreate(filepath.Join(dir, "key"), func() string { return "x" }, func(string) (string, error) { return "", damaged })
	if !errors.Is(err, damaged) {
		t.Fatalf("read error: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "key")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file was made after a failed read: %v", err)
	}
	_, err = ReadOrCreate(filepath.Join(dir, "missing", "key"), func() string { return "x" }, readTrimmed)
	var ce *CreateError
	if !errors.As(err, &ce) || ce.Created {
		t.Fatalf("create in a missing directory: %v", err)
	}
}
