package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A syntax error written while the runtime runs keeps the config read last, and the log says
// that it is kept, not only that the reread failed.
func TestLiveKeepsLastGoodConfigAndSaysSo(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	if err := os.WriteFile(path, []byte("[harnesses.sh]\ncommand = [\"sh\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logged []string
	l := NewLive(home, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	if err := l.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[harnesses.sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if cfg := l.Current(); cfg == nil || cfg.Harnesses["sh"].Command == nil {
		t.Fatalf("Current after a syntax error = %+v, want the config read last", cfg)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "keeps the config it read last") || !strings.Contains(logged[0], "fix the syntax") {
		t.Fatalf("logged %q, want the failure, that the last config is kept, and the fix", logged)
	}
}
