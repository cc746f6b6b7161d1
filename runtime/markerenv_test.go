package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/marker/markertest"
)

// Marker blocks as a tool of the root's tests (the public contract, usage over a tree): the
// marker capability's own tests are in runtime/marker.

var (
	gitRepo      = markertest.GitRepo
	commitBlocks = markertest.CommitBlocks
	fence        = markertest.Fence
)

// markerHarnesses are the test homes' harnesses with the author harness.
func markerHarnesses() map[string]config.Harness { return markertest.Harnesses(testHarnesses) }

type markerEnv struct {
	*testHost
	c   *api.Client
	cwd string
}

// author starts the author thread in dir, whose first turn prints blocks.
func (m *markerEnv) author(dir, blocks string) string {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "blocks.md"), []byte(blocks), 0o600); err != nil {
		m.t.Fatal(err)
	}
	// A task of its own each time: the same task within the dedupe window is the same thread.
	task := fmt.Sprintf("work %d", time.Now().UnixNano())
	return delegate(m.t, m.c, api.DelegateStartParams{Harness: "author", Task: task, Cwd: dir}).Thread.ID
}

func (m *markerEnv) markers(author string) api.ThreadMarkersResult {
	m.t.Helper()
	return call[api.ThreadMarkersResult](m.t, m.c, api.MethodThreadMarkers, api.ThreadMarkersParams{Thread: author})
}
