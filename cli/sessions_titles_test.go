package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/runtime/api"
)

// A person who keeps no runtime running: the first `sessions --search` embeds a runtime for
// the one command, answers every match in one call (no cursor to follow) and leaves the
// title index in the home (0600, titles and times only); the next one-shot search answers
// from that index, saying so, with the same matches.
func TestOneShotSearchWritesTheTitleIndexForTheNext(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	var want []string // newest first
	for i, name := range []string{"Needle one", "other", "the NEEDLE two", "plain", "needle three"} {
		id := stored(t, codexHome, "PREVIEW-SECRET "+string(rune('a'+i)))
		codexfixture.Name(t, codexHome, id, name)
		if strings.Contains(strings.ToLower(name), "needle") {
			want = append([]string{id}, want...)
		}
	}
	home := operatorHome(t, bin, codexHome)
	search := func() api.CatalogHostSessions {
		t.Helper()
		out, errOut, code := run(t, "sessions", "--search", "needle", "--limit", "50", "--json")
		var res api.CatalogSessionsResult
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Hosts) != 1 {
			t.Fatalf("sessions --search (%d): %s %s", code, out, errOut)
		}
		return res.Hosts[0]
	}
	idsOf := func(p api.CatalogHostSessions) string {
		var ids []string
		for _, s := range p.Sessions {
			ids = append(ids, s.ID)
		}
		return strings.Join(ids, ",")
	}

	first := search()
	if first.Error != nil || first.NextCursor != "" || first.Revalidating || idsOf(first) != strings.Join(want, ",") {
		t.Fatalf("first one-shot search: want %v in one exact answer, got %+v", want, first)
	}
	files, _ := filepath.Glob(filepath.Join(home, "catalog-index", "titles-*.idx"))
	if len(files) != 1 {
		t.Fatalf("the one-shot command left no title index: %v", files)
	}
	fi, err := os.Stat(files[0])
	raw, _ := os.ReadFile(files[0])
	if err != nil || fi.Mode().Perm() != 0o600 || strings.Contains(string(raw), "PREVIEW-SECRET") || !strings.Contains(string(raw), want[0]) {
		t.Fatalf("title index %v %v:\n%s", fi, err, raw)
	}

	next := search()
	if next.Error != nil || next.NextCursor != "" || !next.Revalidating || idsOf(next) != strings.Join(want, ",") {
		t.Fatalf("next one-shot search: want %v answered from the index (revalidating), got %+v", want, next)
	}
}
