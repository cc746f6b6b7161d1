package codexfixture

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/internal/codextest"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Name gives thread id of codexHome a title the way another Codex client renames it, with
// an App Server of its own that is stopped before returning: the thread stays loaded nowhere.
func Name(t testing.TB, codexHome, id, name string) {
	t.Helper()
	ctx := context.Background()
	c, err := appserver.Start(ctx, appserver.Config{Bin: codextest.CodexBin(t), Env: codextest.Env(codexHome), Dir: codexHome,
		StderrLog: filepath.Join(t.TempDir(), "fixture-app-server.log")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Call(ctx, "thread/name/set", map[string]any{"threadId": id, "name": name}, nil); err != nil {
		t.Fatalf("name thread %s: %v", id, err)
	}
}
