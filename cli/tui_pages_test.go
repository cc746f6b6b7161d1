package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/ui"
)

// pageSessions is how many sessions the home of several pages holds besides its seed: more
// than four fleet pages of 50, so that 150 moves cross three page boundaries and pages
// remain to load after them.
const pageSessions = 230

// catalogOrder is every session of host in the catalog's order, by title, read page after
// page as the fleet reads them.
func catalogOrder(t *testing.T, s *operatorSession, host string) (ids, titles []string) {
	t.Helper()
	p := api.CatalogSessionsParams{Host: host, Limit: 50}
	for {
		var res api.CatalogSessionsResult
		if err := s.Call(context.Background(), api.MethodCatalogSessions, p, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Hosts) != 1 {
			t.Fatalf("catalog answered %d hosts", len(res.Hosts))
		}
		for _, r := range res.Hosts[0].Sessions {
			ids, titles = append(ids, r.ID), append(titles, r.Title)
		}
		if res.Hosts[0].NextCursor == "" {
			return ids, titles
		}
		p.Cursor = res.Hosts[0].NextCursor
	}
}

// selectedRow is the fleet row the cursor marks (›) in frames drawn after the last action.
var selectedRow = regexp.MustCompile(`› \S+ stored +(page session \d{3}|the seed session)`)

// waitSelected waits until a whole screen marks title as the fleet's selected row. The last
// mark drawn counts, so a cursor that passed title on its way elsewhere does not.
func (d *appDriver) waitSelected(title string) {
	d.t.Helper()
	got := ""
	for range 10 {
		// Drawn anew once a second, read as soon as the frame is there.
		d.repaint()
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if m := selectedRow.FindAllSubmatch(d.since(), -1); len(m) > 0 {
				if got = string(m[len(m)-1][1]); got == title {
					return
				}
			}
		}
	}
	d.t.Fatalf("the selected row is %q, want %q; the last screen:\n%s", got, title, d.since())
}

// Issue 24 items 2–4, against a real runtime and App Server on a home of several pages:
// fast keys across page boundaries land where they were aimed; a re-read that finds a new
// session keeps the pages loaded and the selection; G loads to the end; below the minimum
// size q still quits.
func TestTerminalAppKeepsItsPlaceOnAHomeOfSeveralPages(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	seed, _ := codexfixture.StoredThread(t, codexHome, "", "the seed session")
	codexfixture.Name(t, codexHome, seed, "the seed session")
	codexfixture.Many(t, codexHome, seed, pageSessions, func(i int) string { return fmt.Sprintf("page session %03d", i) })

	home, _ := appHomeWith(t, append(codextest.Env(codexHome), "CODEXHOST_CODEX_BIN="+bin))
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	d, s, km := appOn(t, ctx, home, 120, 35, 0)
	_, titles := catalogOrder(t, s, "gateway:local")
	if len(titles) != pageSessions+1 {
		t.Fatalf("the catalog lists %d sessions, want %d", len(titles), pageSessions+1)
	}
	d.waitFor("gateway:local  ✓ ok · 50", "Fleet · 50")
	d.waitSelected(titles[0])

	// Item 3: keys typed faster than pages load are applied once the page is there.
	d.typeText(strings.Repeat(runeKey(t, km.List.Down), 60))
	d.waitSelected(titles[60])
	d.press(km.List.Top)
	d.waitSelected(titles[0])
	d.typeText(strings.Repeat(runeKey(t, km.List.Down), 150))
	d.waitSelected(titles[150])
	d.typeText(strings.Repeat(runeKey(t, km.List.Up), 30))
	d.waitSelected(titles[120])

	// Item 2: a session made meanwhile by another Codex client comes in with the re-read,
	// ahead of the rest; the loaded pages, and the selected session, stay.
	codexfixture.Many(t, codexHome, seed, 1, func(int) string { return "a session made meanwhile" })
	// The runtime serves the newest page from memory for a few seconds (catalog IndexTTL):
	// the app re-reads, as its timer does, until the new session is in.
	for i := 0; ; i++ {
		d.skip(ui.ReconcileEvery)
		d.act(func() { d.tm.Send(tea.FocusMsg{}) })
		if d.seen(2*time.Second, "Fleet · 201") {
			break
		}
		if i == 30 {
			t.Fatalf("the re-read never showed the new session:\n%s", d.since())
		}
	}
	d.waitSelected(titles[120])
	if strings.Contains(string(d.since()), "Fleet · 50") {
		t.Fatalf("the re-read went back to the first page:\n%s", d.since())
	}

	// G walks to the real end, the seed, with every session loaded.
	d.press(km.List.Bottom)
	d.waitForScreen(fmt.Sprintf("Fleet · %d ━", pageSessions+2))
	d.waitSelected("the seed session")

	// Item 4: below 80×24 the small screen says so, and q quits from it.
	d.w, d.h = 60, 20
	d.repaint()
	d.waitFor("terminal too small", "press q to quit")
	d.press(km.Global.Quit)
	d.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// runeKey is the key of binding b that is one character, so that typing a run of it sends
// as many key presses, as a terminal does for fast keys.
func runeKey(t *testing.T, b keymapBinding) string {
	t.Helper()
	for _, k := range b.Keys() {
		if len([]rune(k)) == 1 {
			return k
		}
	}
	t.Fatalf("no one-character key in %q", b.Keys())
	return ""
}
