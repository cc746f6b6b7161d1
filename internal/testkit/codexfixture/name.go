package codexfixture

import (
	"context"
	"testing"
)

// Name gives thread id of codexHome a title the way another Codex client renames it, with
// an App Server of its own that is stopped before returning: the thread stays loaded nowhere.
func Name(t testing.TB, codexHome, id, name string) {
	t.Helper()
	c := start(t, codexHome)
	defer c.Close()
	if err := c.Call(context.Background(), "thread/name/set", map[string]any{"threadId": id, "name": name}, nil); err != nil {
		t.Fatalf("name thread %s: %v", id, err)
	}
}
