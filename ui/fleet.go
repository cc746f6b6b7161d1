package ui

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/runtime/api"
)

// threadsGroup is the fleet group of the runtime's own threads (every harness), listed after
// the catalog hosts.
const threadsGroup = "codexhost"

// fleetPageSize is the rows asked per host and page.
const fleetPageSize = 50

type fleetRow struct {
	ref     threadRef
	branch  string
	updated time.Time
}

type fleetGroup struct {
	id      string
	health  string // from catalog.hosts
	errLine string // the host's last error; the group keeps its place
	rows    []fleetRow
	shown   int    // rows the search lets through, counted by relayout
	next    string // cursor of the host's next page
	total   int    // every session of the host, when the runtime knows it (0: not known)
	loaded  bool   // a first page arrived
	loading bool   // a page is in flight
	pageSeq int    // identity of the page in flight
	pages   int    // pages loaded since the first
	query   string // the search its rows answer
	// settled is the reload whose first page the group shows: from its catalog.host event,
	// ahead of the call's aggregate answer, or from that answer.
	settled int
}

type lineKind int

const (
	lineHeader lineKind = iota
	lineError
	lineRow
	lineMore
	lineEmpty
)

type fleetLine struct {
	kind lineKind
	g, r int
}

// Replies of the fleet's loads. seq is the reload generation; pageSeq the group's page.
type (
	hostsLoadedMsg struct {
		seq int
		res api.CatalogHostsResult
		err error
	}
	sessionsLoadedMsg struct {
		seq, pageSeq int
		host         string // "" for the first page of every host
		res          api.CatalogSessionsResult
		err          error
	}
	threadsLoadedMsg struct {
		seq, pageSeq int
		cursor       string
		keep         bool // rows moving to a host stay until it shows them
		res          api.ThreadListResult
		err          error
	}
	selectSettledMsg struct{ seq int }
	// hostSettledMsg is one host's first page, sent while the call still waits for others.
	// next reads the call's next message; it is run even for a stale reload, so the call's
	// goroutine always finishes.
	hostSettledMsg struct {
		seq  int
		page api.CatalogHostSessions
		next tea.Cmd
	}
)

// progressRuntime is a runtime connection that also hands over a call's own events while
// the call runs (*api.Client has it). Without it the fleet shows every host at once, when
// the slowest one answered.
type progressRuntime = api.EventRequester

// fleetPane lists the catalog's sessions grouped by host, then the runtime's own threads.
type fleetPane struct {
	c       *common
	w, h    int
	focused bool

	groups    []*fleetGroup
	lines     []fleetLine
	shownRows int // rows of every group the search lets through
	titleRows int // of them, the rows the title search alone lets through (fleet_filter.go)
	// cwdMax and branchMax are the widest cwd and branch of the rows shown (renderRow).
	cwdMax, branchMax int
	// usageMax is the widest usage cell of the rows shown (0: no codexhost thread shown).
	usageMax int
	active   int    // rows of threads running a turn
	cursor   int    // index into lines; a row or a more line
	curKey   string // what the cursor is on, to find it again after reloads
	offset   int
	seq      int
	pending  int    // moves that arrived while the page under the cursor loaded (fleet_paging.go)
	toEnd    bool   // "bottom" pressed: pages load until the last
	err      string // the whole catalog failed

	search    textinput.Model
	searching bool
	query     string // applied search

	selSeq  int
	selKey  string // the last selection sent to the root
	hostsOK bool
	// firstLoading: the first pages of reload seq are on their way, so a host catalog.hosts
	// names meanwhile is loading, not empty.
	firstLoading bool
	loadedAt     time.Time // when the last reload started
	recheckArmed bool      // a recheckMsg is on its way (fleet_recheck.go)
	// hosts as catalog.hosts last answered, their health updated by every first page since,
	// so the status bar agrees with the host lines.
	hosts []api.CatalogHost
}

// Reconciling: the catalog has no events for sessions other Codex clients make or change,
// so the visible pages are read again on focus and by a timer, never more often than
// ReconcileEvery; a reload the user asked for counts as one.
const (
	ReconcileEvery = 30 * time.Second
	// reconcileOnFocus is the least age of the pages for a focus to read them again.
	reconcileOnFocus = 2 * time.Second
)

type reconcileMsg struct{}

// reconcileTimer arms the next timer tick, when the timer is on.
func (f *fleetPane) reconcileTimer() tea.Cmd {
	if f.c.reconcile <= 0 {
		return nil
	}
	return tea.Tick(f.c.reconcile, func(time.Time) tea.Msg { return reconcileMsg{} })
}

// reconcile reads the pages again when they are at least age old and the user is not
// typing a search; a reload already on its way is not doubled.
func (f *fleetPane) reconcile(age time.Duration) tea.Cmd {
	if f.searching || f.firstLoading || f.c.now().Sub(f.loadedAt) < age {
		return nil
	}
	return f.reload()
}

func newFleetPane(c *common) *fleetPane {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "search titles, or status:running|stored|error"
	ti.CharLimit = 200
	ti.PromptStyle = c.st.Accent
	ti.TextStyle = c.st.Text
	ti.PlaceholderStyle = c.st.Muted
	ti.Cursor.SetMode(cursor.CursorStatic)
	return &fleetPane{c: c, search: ti, groups: []*fleetGroup{{id: threadsGroup}}}
}

func (f *fleetPane) Init() tea.Cmd { return tea.Batch(f.reload(), f.reconcileTimer()) }

func (f *fleetPane) Title() string {
	// The count is of the rows the search lets through, not of every row loaded.
	return "Fleet · " + f.filterTitle()
}

func (f *fleetPane) SetSize(w, h int) { f.w, f.h = w, h; f.scroll() }
func (f *fleetPane) SetFocused(b bool) {
	f.focused = b
}
func (f *fleetPane) Capturing() bool { return f.searching }

func (f *fleetPane) ShortHelp() []key.Binding {
	k := f.c.keys
	if f.searching {
		return []key.Binding{k.Input.Submit, k.Input.Cancel}
	}
	b := []key.Binding{navHelp(k.List.Up, k.List.Down), k.List.Select, k.Fleet.Search}
	if f.query != "" {
		b = append(b, k.Fleet.ClearSearch)
	}
	return b
}

func (f *fleetPane) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

// Selected is the thread under the cursor.
func (f *fleetPane) Selected() (threadRef, bool) {
	if f.cursor < 0 || f.cursor >= len(f.lines) || f.lines[f.cursor].kind != lineRow {
		return threadRef{}, false
	}
	l := f.lines[f.cursor]
	return f.groups[l.g].rows[l.r].ref, true
}

func (f *fleetPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return f.handleKey(msg)
	case hostsLoadedMsg:
		if msg.seq != f.seq {
			return nil
		}
		if msg.err != nil {
			f.err = errText(msg.err)
			f.relayout()
			return nil
		}
		f.err = ""
		for _, h := range msg.res.Hosts {
			g := f.group(h.ID)
			if f.firstLoading && g.settled != f.seq {
				g.loading = true
			}
			g.health = h.Health.State
			if h.Health.State == api.CatalogHealthError && g.errLine == "" {
				g.errLine = oneLine(h.Health.Code + ": " + h.Health.Message)
			}
			if h.Default {
				f.c.defaultHost = h.ID
			}
		}
		f.hostsOK = true
		f.hosts = slices.Clone(msg.res.Hosts)
		ids := make([]string, len(f.hosts))
		for i, h := range f.hosts {
			ids[i] = h.ID
		}
		f.orderGroups(ids)
		for _, g := range f.groups {
			if g.settled == f.seq && g.loaded {
				f.pageHealth(g.id, g.errLine)
			}
		}
		f.fixNativeRefs()
		f.relayout()
		return emit(hostsHealthMsg{hosts: slices.Clone(f.hosts)})
	case hostSettledMsg:
		return tea.Batch(msg.next, f.hostSettled(msg))
	case sessionsLoadedMsg:
		return f.sessionsLoaded(msg)
	case threadsLoadedMsg:
		return f.threadsLoaded(msg)
	case selectSettledMsg:
		if msg.seq != f.selSeq {
			return nil
		}
		if ref, ok := f.Selected(); ok {
			return emit(threadSelectedMsg{ref: ref})
		}
	case eventMsg:
		return f.onEvent(msg.ev)
	case reconcileMsg:
		return tea.Batch(f.reconcile(ReconcileEvery), f.reconcileTimer())
	case recheckMsg:
		f.recheckArmed = false
		return f.reconcile(reconcileOnFocus)
	case tea.FocusMsg:
		return f.reconcile(reconcileOnFocus)
	case threadChangedMsg:
		if msg.archived {
			f.remove(msg.id)
			return nil
		}
		if f.group(threadsGroup).loading {
			return nil
		}
		return f.threadsPage("", true)
	}
	return nil
}

func (f *fleetPane) handleKey(k tea.KeyMsg) tea.Cmd {
	km := f.c.keys
	if f.searching {
		switch {
		case key.Matches(k, km.Input.Submit):
			f.searching = false
			f.search.Blur()
			f.query = strings.TrimSpace(f.search.Value())
			return f.reload()
		case key.Matches(k, km.Input.Cancel):
			f.searching = false
			f.search.Blur()
			f.relayout()
			return nil
		}
		var cmd tea.Cmd
		f.search, cmd = f.search.Update(k)
		f.relayout()
		return tea.Batch(cmd, f.selectionChanged())
	}
	if !key.Matches(k, km.List.Bottom) {
		f.toEnd = false
	}
	switch {
	case key.Matches(k, km.List.Up):
		return f.move(-1)
	case key.Matches(k, km.List.Down):
		return f.move(1)
	case key.Matches(k, km.List.PageUp):
		return f.move(-f.bodyHeight())
	case key.Matches(k, km.List.PageDown):
		return f.move(f.bodyHeight())
	case key.Matches(k, km.List.Top):
		return f.moveTo(f.nearestSelectable(0, 1))
	case key.Matches(k, km.List.Bottom):
		f.pending, f.toEnd = 0, true
		cmd := f.moveTo(f.nearestSelectable(len(f.lines)-1, -1))
		if g, more := f.moreUnderCursor(); !more {
			f.toEnd = false // every page is here: this is the end
		} else if !g.loading {
			cmd = tea.Batch(cmd, f.nextPage(g))
		}
		return cmd
	case key.Matches(k, km.List.Select):
		if ref, ok := f.Selected(); ok {
			f.selKey = f.curKey
			return emit(threadSelectedMsg{ref: ref, focus: true})
		}
		return f.loadMoreAtCursor()
	case key.Matches(k, km.Fleet.Search):
		f.searching = true
		f.search.SetValue(f.query)
		f.search.CursorEnd()
		f.search.Width = max(f.w-4, 1)
		return f.search.Focus()
	case key.Matches(k, km.Fleet.ClearSearch):
		if f.query == "" {
			return nil
		}
		f.query = ""
		f.search.SetValue("")
		return f.reload()
	}
	return nil
}

// move goes delta selectable lines; arriving on a "more" line loads that page, and the
// steps left wait for it (fleet_paging.go), as do moves while it loads.
func (f *fleetPane) move(delta int) tea.Cmd {
	if len(f.lines) == 0 || f.queueMove(delta) {
		return nil
	}
	dir := 1
	if delta < 0 {
		dir = -1
	}
	i := f.cursor
	for steps := 0; steps < abs(delta); steps++ {
		j := i + dir
		for j >= 0 && j < len(f.lines) && !f.selectable(j) {
			j += dir
		}
		if !f.selectable(j) {
			break
		}
		i = j
		if dir > 0 && f.lines[i].kind == lineMore && f.groups[f.lines[i].g].next != "" {
			f.pending += abs(delta) - steps - 1
			break
		}
	}
	return f.moveTo(i)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (f *fleetPane) moveTo(i int) tea.Cmd {
	if !f.selectable(i) {
		return nil
	}
	f.cursor = i
	f.curKey = f.lineKey(f.lines[i])
	f.scroll()
	return tea.Batch(f.loadMoreAtCursor(), f.selectionChanged())
}

func (f *fleetPane) loadMoreAtCursor() tea.Cmd {
	if f.cursor >= 0 && f.cursor < len(f.lines) && f.lines[f.cursor].kind == lineMore {
		return f.nextPage(f.groups[f.lines[f.cursor].g])
	}
	return nil
}

// selectionChanged tells the root about a new selection once the cursor rests. What the
// cursor is on counts, not what it was put on: a search that hides the selected row moves the
// cursor, and the other panes must follow it there.
func (f *fleetPane) selectionChanged() tea.Cmd {
	ref, ok := f.Selected()
	if !ok {
		return nil
	}
	k := f.lineKey(f.lines[f.cursor])
	if k == f.selKey {
		return nil
	}
	f.curKey, f.selKey = k, k
	f.selSeq++
	if f.c.debounce <= 0 {
		return emit(threadSelectedMsg{ref: ref})
	}
	seq := f.selSeq
	return tea.Tick(f.c.debounce, func(time.Time) tea.Msg { return selectSettledMsg{seq: seq} })
}

// titled is the ids of the rows whose title is s (any case), or failing that contains it.
func (f *fleetPane) titled(s string) []string {
	s = strings.ToLower(s)
	var exact, part []string
	for _, g := range f.groups {
		for _, r := range g.rows {
			t := strings.ToLower(r.ref.Title)
			switch {
			case t == "":
			case t == s:
				exact = append(exact, r.ref.ID)
			case strings.Contains(t, s):
				part = append(part, r.ref.ID)
			}
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return part
}
