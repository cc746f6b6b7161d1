package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
)

// The operator tables sort by the column named, refuse an unknown one with the names there
// are (before anything starts), count with plurals and show relative times, while --json keeps
// each time as RFC 3339 with its zone. Through a pipe they keep their full width.
func TestOperatorTablesSortCountAndKeepTimesInJSON(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	older := stored(t, codexHome, "the older one")
	newer := stored(t, codexHome, "the newer one")
	operatorHome(t, bin, codexHome)
	setenv(t, "COLUMNS", "")

	_, errOut, code := run(t, "sessions", "--sort", "size")
	if code != 1 || errorCode(t, errOut) != model.CodeInvalidArgument || !strings.Contains(errOut, "sort by one of: id, status, updated, source, cwd, title") {
		t.Fatalf("--sort size: %d %s", code, errOut)
	}
	out, errOut, code := run(t, "sessions")
	if code != 0 || !strings.Contains(out, "gateway:local  2 sessions") || !strings.Contains(out, "just now") {
		t.Fatalf("sessions: %d %s%s", code, out, errOut)
	}
	if strings.Index(out, newer) > strings.Index(out, older) || strings.Contains(out, "…") || strings.Contains(out, "\x1b[") {
		t.Fatalf("sessions: newest first, uncut and colourless through a pipe:\n%s", out)
	}
	out, _, _ = run(t, "sessions", "--sort", "ID")
	if strings.Index(out, older) > strings.Index(out, newer) {
		t.Fatalf("--sort ID:\n%s", out)
	}
	// The cwd (a long temporary path) is cut to fit COLUMNS; the ids are whole.
	setenv(t, "COLUMNS", "100")
	out, _, _ = run(t, "sessions")
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(l, "  0") && (len([]rune(l)) > 100 || !strings.Contains(l, "…")) {
			t.Errorf("COLUMNS=100: row of %d columns: %q", len([]rune(l)), l)
		}
	}
	if !strings.Contains(out, older) {
		t.Errorf("COLUMNS=100 cut an id:\n%s", out)
	}

	out, _, _ = run(t, "sessions", "--json")
	var res struct {
		Hosts []struct {
			Sessions []struct {
				UpdatedAt string `json:"updatedAt"`
			} `json:"sessions"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hosts) == 0 || len(res.Hosts[0].Sessions) != 2 {
		t.Fatalf("--json: %v %s", err, out)
	}
	for _, s := range res.Hosts[0].Sessions {
		at, err := time.Parse(time.RFC3339, s.UpdatedAt)
		if err != nil || !(strings.HasSuffix(s.UpdatedAt, "Z") || strings.ContainsAny(s.UpdatedAt[19:], "+-")) || at.IsZero() {
			t.Errorf("updatedAt %q is not RFC 3339 with a zone (%v)", s.UpdatedAt, err)
		}
	}
}
