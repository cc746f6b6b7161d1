package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A linked session says, for people and in --json, which codexhost thread drives it and which
// source a branch continues; an unlinked one says nothing more.
func TestSessionsAndTranscriptShowTheLinkOfASession(t *testing.T) {
	t.Parallel()
	branch := api.SessionLink{CodexhostThread: "sup-1", BranchOf: &model.BranchSource{Host: "gateway:local", Thread: "src-1"}}
	res := api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: []api.CatalogSession{
		{ID: "canon-1", Title: "Fix the parser (branch)", Status: "idle", SessionLink: branch},
		{ID: "native-1", Status: "idle", SessionLink: api.SessionLink{CodexhostThread: "native-1"}},
		{ID: "plain-1", Title: "plain", Status: "notLoaded"},
	}}}}
	var w bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetOut(&w)
	printSessions(cmd, &tableFlags{columns: opview.SessionColumns}, &w, res, "", "")
	lines := strings.Split(w.String(), "\n")
	for want, frag := range map[string]string{
		"canon-1":  "Fix the parser (branch) [codexhost thread sup-1, branch of src-1 on gateway:local]",
		"native-1": "(untitled) [codexhost thread]",
	} {
		if !lineWith(lines, want, frag) {
			t.Fatalf("sessions lack %q on the row of %s:\n%s", frag, want, w.String())
		}
	}
	if lineWith(lines, "plain-1", "[") {
		t.Fatalf("an unlinked session has a note:\n%s", w.String())
	}
	raw, _ := json.Marshal(res.Hosts[0].Sessions[0])
	if !strings.Contains(string(raw), `"codexhostThread":"sup-1","branchOf":{"host":"gateway:local","thread":"src-1"}`) {
		t.Fatalf("session JSON %s", raw)
	}
	if raw, _ := json.Marshal(res.Hosts[0].Sessions[2]); strings.Contains(string(raw), "codexhostThread") || strings.Contains(string(raw), "branchOf") {
		t.Fatalf("unlinked session JSON %s", raw)
	}

	w.Reset()
	printTranscript(&w, api.CatalogTranscriptResult{Host: "gateway:local", Thread: "canon-1", SessionLink: branch})
	if !strings.Contains(w.String(), "linked: [codexhost thread sup-1, branch of src-1 on gateway:local]") {
		t.Fatalf("transcript:\n%s", w.String())
	}
	w.Reset()
	printTranscript(&w, api.CatalogTranscriptResult{Host: "gateway:local", Thread: "plain-1"})
	if strings.Contains(w.String(), "linked") {
		t.Fatalf("unlinked transcript:\n%s", w.String())
	}
}

// lineWith reports whether a line holding id also holds frag.
func lineWith(lines []string, id, frag string) bool {
	for _, l := range lines {
		if strings.Contains(l, id) && strings.Contains(l, frag) {
			return true
		}
	}
	return false
}
