package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/themes"
	"github.com/codexhost/codexhost/ui"
)

// appDriver presses keys in a teatest program and waits for what the frames after the last
// key press show. The output is kept whole, so a frame that arrived together with an earlier
// one is never missed.
type appDriver struct {
	t    testing.TB
	tm   *teatest.TestModel
	app  *ui.App
	all  bytes.Buffer
	mark int
	w, h int
	// ahead is how far the app's clock runs ahead of the wall clock: a test moves it past a
	// dialog's grace instead of sleeping through it.
	ahead atomic.Int64
}

func (d *appDriver) now() time.Time { return time.Now().Add(time.Duration(d.ahead.Load())) }

// skip moves the app's clock on by dt.
func (d *appDriver) skip(dt time.Duration) { d.ahead.Add(int64(dt)) }

func (d *appDriver) drain() {
	b, _ := io.ReadAll(d.tm.Output())
	d.all.Write(b)
}

func (d *appDriver) since() []byte { d.drain(); return d.all.Bytes()[d.mark:] }

// seen reports whether every want showed since the last action, waiting up to wait.
func (d *appDriver) seen(wait time.Duration, want ...string) bool {
	deadline := time.Now().Add(wait)
	for {
		out := d.since()
		ok := true
		for _, w := range want {
			ok = ok && bytes.Contains(out, []byte(w))
		}
		if ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (d *appDriver) waitFor(want ...string) {
	d.t.Helper()
	if !d.seen(30*time.Second, want...) {
		d.t.Fatalf("waited for %q; the app showed since the last key:\n%s", want, d.since())
	}
}

func (d *appDriver) act(f func()) {
	d.drain()
	d.mark = d.all.Len()
	f()
}

// repaint has the whole screen drawn again (a resize to the same size does), so that a wait
// after it also finds lines a key left unchanged: the renderer writes only changed lines.
func (d *appDriver) repaint() {
	d.act(func() { d.tm.Send(tea.WindowSizeMsg{Width: d.w, Height: d.h}) })
}

// waitForScreen waits until a whole screen shows every want, drawing it anew each second:
// what a key left unchanged is in no frame after it, so waitFor alone cannot see it.
func (d *appDriver) waitForScreen(want ...string) {
	d.t.Helper()
	for range 30 {
		d.repaint()
		if d.seen(time.Second, want...) {
			return
		}
	}
	d.t.Fatalf("waited for a screen with %q; the last one:\n%s", want, d.since())
}

func (d *appDriver) press(b keymapBinding) { d.act(func() { d.tm.Send(keymap.MustMsg(b.Keys()[0])) }) }
func (d *appDriver) key(k string)          { d.act(func() { d.tm.Send(keymap.MustMsg(k)) }) }
func (d *appDriver) typeText(s string)     { d.act(func() { d.tm.Type(s) }) }

// shortIDIn reports whether text shows id in the app's short form: its first 8 characters,
// "…", and an end of it long enough to be unique among the ids the app has loaded.
func shortIDIn(text []byte, before, id, after string) bool {
	re := regexp.MustCompile(regexp.QuoteMeta(before+id[:8]+"…") + `([0-9a-f]{2,})` + regexp.QuoteMeta(after))
	for _, m := range re.FindAllSubmatch(text, -1) {
		if strings.HasSuffix(id, string(m[1])) {
			return true
		}
	}
	return false
}

// waitForShort waits for before + id's short form + after, and the other texts.
func (d *appDriver) waitForShort(before, id, after string, also ...string) {
	d.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out := d.since()
		ok := shortIDIn(out, before, id, after)
		for _, w := range also {
			ok = ok && bytes.Contains(out, []byte(w))
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("waited for %q%s…%q; the app showed since the last key:\n%s", before, id, after, out)
		}
	}
}

// hostCount reads the row count of the last header of host drawn since the last action.
func (d *appDriver) hostCount(host string) int {
	d.t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(host)+`  \S+ \S+ · (\d+)`).FindAllSubmatch(d.since(), -1)
	if len(m) == 0 {
		return -1
	}
	n, _ := strconv.Atoi(string(m[len(m)-1][1]))
	return n
}

func catalogSessionIDs(t *testing.T, s *operatorSession, host string) []string {
	t.Helper()
	var res api.CatalogSessionsResult
	if err := s.Call(context.Background(), api.MethodCatalogSessions, api.CatalogSessionsParams{Host: host}, &res); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hosts {
		for _, ss := range h.Sessions {
			ids = append(ids, ss.ID)
		}
	}
	return ids
}

// TestTerminalAppFlowWithANativeSession runs the app against a runtime whose Codex home holds
// stored sessions, as a person would: select a session of gateway:local, page its transcript
// back, continue it, send a message to the supervised thread and see the reply, and archive
// another session with confirmation.
func TestTerminalAppFlowWithANativeSession(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	// More turns than one transcript page (20 turns) holds.
	var turns []string
	for i := 1; i <= 23; i++ {
		turns = append(turns, fmt.Sprintf("stored turn %02d", i))
	}
	long, _ := codexfixture.StoredThread(t, codexHome, "", turns...)
	spare, _ := codexfixture.StoredThread(t, codexHome, "", "spare session to archive")

	home, _ := appHomeWith(t, append(codextest.Env(codexHome), "CODEXHOST_CODEX_BIN="+bin))
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	const grace = 300 * time.Millisecond
	d, s, km := appOn(t, ctx, home, 150, 45, grace)
	if ids := catalogSessionIDs(t, s, "gateway:local"); !slices.Contains(ids, long) || !slices.Contains(ids, spare) {
		t.Fatalf("the catalog does not list the stored sessions: %v", ids)
	}

	// The host's own line and its sessions (untitled: shown by id), each listed once there.
	d.waitFor("gateway:local  ✓ ok")
	d.waitForShort("", long, "")
	d.waitForShort("", spare, "")
	before := d.hostCount("gateway:local")
	if before < 2 {
		t.Fatalf("gateway:local shows %d sessions:\n%s", before, d.since())
	}

	// Select the long session: the cursor moves down the fleet until its transcript shows.
	selectSession := func(id string) {
		t.Helper()
		for range 12 {
			d.press(km.List.Down)
			if d.seen(2*time.Second, "· "+id) {
				return
			}
		}
		t.Fatalf("%s never got selected:\n%s", id, d.all.Bytes())
	}
	d.press(km.List.Top)
	if !d.seen(2*time.Second, "· "+long) {
		selectSession(long)
	}
	d.press(km.List.Select)
	// The newest page, followed live: the last turn shows.
	d.waitFor("▌ stored turn 23", "fake reply #23 to: stored turn 23", "● live")

	// Page back: the top of the newest page offers older messages, and it does not reach the
	// first turns; up once more loads the older page.
	d.press(km.Transcript.Top)
	d.waitFor("paused", "↑ older messages: scroll up to load")
	if bytes.Contains(d.since(), []byte("▌ stored turn 01")) || bytes.Contains(d.since(), []byte("▌ stored turn 02")) {
		t.Fatalf("the newest page holds the oldest turns:\n%s", d.since())
	}
	// The loaded page keeps the lines on screen where they were; the oldest turns show at the
	// top once it landed.
	for i := 0; ; i++ {
		d.press(km.Transcript.Up)
		d.press(km.Transcript.Top)
		if d.seen(2*time.Second, "▌ stored turn 01", "▌ stored turn 02") {
			break
		}
		if i == 5 {
			t.Fatalf("the older page never showed:\n%s", d.all.Bytes())
		}
	}
	if bytes.Contains(d.since(), []byte("↑ older messages")) {
		t.Fatalf("an older page is offered after the oldest turn:\n%s", d.since())
	}

	// Continue: the dialog explains, y confirms, the supervised thread opens.
	d.press(km.Fleet.Continue)
	d.waitFor("Continue session?", "new branch", "(y/N)")
	d.press(km.Dialog.Confirm)
	d.waitForShort("of ", long, "", "new supervised thread")
	sup := regexp.MustCompile(`new supervised thread (\S+…\S\S)`).FindSubmatch(d.since())
	if sup == nil {
		t.Fatalf("no supervised thread id:\n%s", d.since())
	}

	// Send a message to it and see the reply.
	d.press(km.Thread.Send)
	d.waitFor("Send a message")
	d.typeText("hello branch")
	d.press(km.Input.Submit)
	d.waitFor("sent to " + string(sup[1]))
	d.waitFor("▌ hello branch", "fake reply #", "to: hello branch")

	// Archive the spare session: any key but y cancels, y archives and it leaves the fleet.
	d.press(km.Global.Fleet)
	d.press(km.List.Top)
	if !d.seen(2*time.Second, "· "+spare) {
		selectSession(spare)
	}
	d.press(km.Thread.Archive)
	d.waitFor("Archive session?", "y archive")
	d.skip(grace)
	d.key("enter")
	d.waitForShort("cancelled: archiving ", spare, "")
	if ids := catalogSessionIDs(t, s, "gateway:local"); !slices.Contains(ids, spare) {
		t.Fatal("enter archived the session")
	}
	d.press(km.Thread.Archive)
	d.waitFor("Archive session?")
	d.skip(grace)
	d.press(km.Dialog.Confirm)
	d.waitForShort("archived ", spare, " on gateway:local")
	// One session fewer, and the branch's own Codex thread, made by its first send, joins
	// gateway:local once the host's page is read again.
	d.press(km.Global.Refresh)
	d.waitForScreen(fmt.Sprintf("gateway:local  ✓ ok · %d", before))
	if ids := catalogSessionIDs(t, s, "gateway:local"); slices.Contains(ids, spare) || !slices.Contains(ids, long) {
		t.Fatalf("sessions after archiving: %v", ids)
	}

	d.press(km.Global.Quit)
	d.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	// The final frame: neither fleet group lists the archived session any more.
	final, ok := d.tm.FinalModel(t).(*ui.App)
	if !ok || final != d.app {
		t.Fatalf("final model %T", d.tm.FinalModel(t))
	}
	fleet := fleetColumn(final.View())
	if shortIDIn([]byte(fleet), "", spare, "") || strings.Contains(fleet, "spare session to archive") ||
		!shortIDIn([]byte(fleet), "", long, "") {
		t.Fatalf("the fleet after archiving:\n%s", fleet)
	}
}

// fleetColumn is the text of the fleet pane: the first box of each line of a wide layout.
func fleetColumn(view string) string {
	var out []string
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		if !strings.HasPrefix(l, "│") && !strings.HasPrefix(l, "┃") {
			continue
		}
		l = strings.TrimLeft(l, "│┃")
		if i := strings.IndexAny(l, "│┃"); i >= 0 {
			out = append(out, l[:i])
		}
	}
	return strings.Join(out, "\n")
}

// appOn opens an operator session on home (embedding a runtime when none holds it) and
// drives the terminal app on it at w×h, feeding it the runtime's events as they come.
func appOn(t testing.TB, ctx context.Context, home string, w, h int, grace time.Duration) (*appDriver, *operatorSession, keymap.KeyMap) {
	t.Helper()
	s, err := openOperator(ctx, home, operatorCommand{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	events, err := s.subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	km := keymap.Default()
	d := &appDriver{t: t, w: w, h: h}
	d.app = ui.New(ui.Options{Context: ctx, Runtime: s, Keys: km, Styles: themes.New(r, themes.Dark()),
		Profile: termenv.Ascii, Endpoint: s.endpoint(), Client: s.clientName(), Cwd: t.TempDir(), Timeout: 20 * time.Second,
		Location: time.UTC, Grace: grace, Now: d.now})
	d.tm = teatest.NewTestModel(t, d.app, teatest.WithInitialTermSize(w, h))
	go func() {
		for ev := range events {
			d.tm.Send(ui.EventMsg(ev))
		}
	}()
	return d, s, km
}
