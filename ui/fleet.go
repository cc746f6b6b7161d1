package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/model"
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
	next    string // cursor of the host's next page
	loaded  bool   // a first page arrived
	loading bool   // a page is in flight
	pageSeq int    // identity of the page in flight
	pages   int    // pages loaded since the first
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
type progressRuntime interface {
	CallEvents(ctx context.Context, method string, params, out any, fn func(api.Event)) error
}

// fleetPane lists the catalog's sessions grouped by host, then the runtime's own threads.
type fleetPane struct {
	c       *common
	w, h    int
	focused bool

	groups []*fleetGroup
	lines  []fleetLine
	cursor int    // index into lines; a row or a more line
	curKey string // what the cursor is on, to find it again after reloads
	offset int
	seq    int
	err    string // the whole catalog failed

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
	ti.Placeholder = "search titles"
	ti.CharLimit = 200
	ti.PromptStyle = c.st.Accent
	ti.TextStyle = c.st.Text
	ti.PlaceholderStyle = c.st.Muted
	ti.Cursor.SetMode(cursor.CursorStatic)
	return &fleetPane{c: c, search: ti, groups: []*fleetGroup{{id: threadsGroup}}}
}

func (f *fleetPane) Init() tea.Cmd { return tea.Batch(f.reload(), f.reconcileTimer()) }

func (f *fleetPane) Title() string {
	n := 0
	for _, g := range f.groups {
		n += len(g.rows)
	}
	t := fmt.Sprintf("Fleet · %d", n)
	if f.query != "" {
		t += " · search " + truncate(oneLine(f.query), 20)
	}
	return t
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

// reload reads every group's first page again.
func (f *fleetPane) reload() tea.Cmd {
	f.loadedAt = f.c.now()
	f.seq++
	seq, q, c := f.seq, f.query, f.c
	for _, g := range f.groups {
		g.loading = true
		g.pageSeq++
	}
	f.firstLoading = true
	f.relayout()
	hosts := func() tea.Msg {
		var res api.CatalogHostsResult
		err := c.call(api.MethodCatalogHosts, struct{}{}, &res)
		return hostsLoadedMsg{seq: seq, res: res, err: err}
	}
	return tea.Batch(hosts, f.firstPages(seq, q), f.threadsPage(""))
}

// firstPages reads every host's first page. Each host shows as soon as it settled (its
// catalog.host event), so a slow or dead host holds no other back; the call's aggregate
// answer comes last and completes the hosts no event brought.
func (f *fleetPane) firstPages(seq int, q string) tea.Cmd {
	c := f.c
	p := api.CatalogSessionsParams{Search: q, Limit: fleetPageSize}
	pr, ok := c.rt.(progressRuntime)
	if !ok {
		return func() tea.Msg {
			var res api.CatalogSessionsResult
			err := c.call(api.MethodCatalogSessions, p, &res)
			return sessionsLoadedMsg{seq: seq, res: res, err: err}
		}
	}
	p.Progress = true
	return func() tea.Msg {
		ch := make(chan tea.Msg)
		send := func(msg tea.Msg) {
			select {
			case ch <- msg:
			case <-c.ctx.Done():
			}
		}
		go func() {
			defer close(ch)
			ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
			defer cancel()
			var res api.CatalogSessionsResult
			err := pr.CallEvents(ctx, api.MethodCatalogSessions, p, &res, func(ev api.Event) {
				if ev.Type == api.EventCatalogHost && ev.Catalog != nil {
					send(hostSettledMsg{seq: seq, page: *ev.Catalog})
				}
			})
			send(sessionsLoadedMsg{seq: seq, res: res, err: err})
		}()
		return nextFirstPage(ch)()
	}
}

// nextFirstPage waits for the next message of a firstPages call.
func nextFirstPage(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		if hs, isHost := msg.(hostSettledMsg); isHost {
			hs.next = nextFirstPage(ch)
			return hs
		}
		return msg
	}
}

// threadsPage reads a page of the runtime's threads: the first when cursor is empty.
func (f *fleetPane) threadsPage(cursor string) tea.Cmd {
	g := f.group(threadsGroup)
	g.loading = true
	g.pageSeq++
	seq, pageSeq, c := f.seq, g.pageSeq, f.c
	return func() tea.Msg {
		var res api.ThreadListResult
		err := c.call(api.MethodThreadList, api.ThreadListParams{AnyCwd: true, Sort: "updated-desc", Limit: fleetPageSize, Cursor: cursor}, &res)
		return threadsLoadedMsg{seq: seq, pageSeq: pageSeq, cursor: cursor, res: res, err: err}
	}
}

// nextPage loads the next page of group g through its cursor.
func (f *fleetPane) nextPage(g *fleetGroup) tea.Cmd {
	if g.loading || g.next == "" {
		return nil
	}
	if g.id == threadsGroup {
		return f.threadsPage(g.next)
	}
	g.loading = true
	g.pageSeq++
	seq, pageSeq, host, cursor, q, c := f.seq, g.pageSeq, g.id, g.next, f.query, f.c
	return func() tea.Msg {
		var res api.CatalogSessionsResult
		err := c.call(api.MethodCatalogSessions, api.CatalogSessionsParams{Host: host, Cursor: cursor, Search: q, Limit: fleetPageSize}, &res)
		return sessionsLoadedMsg{seq: seq, pageSeq: pageSeq, host: host, res: res, err: err}
	}
}

// group returns the group of host id, adding it before the threads group when new.
func (f *fleetPane) group(id string) *fleetGroup {
	for _, g := range f.groups {
		if g.id == id {
			return g
		}
	}
	g := &fleetGroup{id: id}
	f.groups = slices.Insert(f.groups, len(f.groups)-1, g)
	return g
}

// orderGroups puts the hosts in the runtime's order (the default host first), whatever
// order their pages settled in; hosts it does not name keep their place after them, and the
// runtime's own threads stay last.
func (f *fleetPane) orderGroups(ids []string) {
	rank := make(map[string]int, len(ids))
	for i, id := range ids {
		rank[id] = i
	}
	slices.SortStableFunc(f.groups, func(a, b *fleetGroup) int {
		key := func(g *fleetGroup) int {
			switch r, ok := rank[g.id]; {
			case g.id == threadsGroup:
				return len(ids) + 1
			case ok:
				return r
			}
			return len(ids)
		}
		return key(a) - key(b)
	})
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
		return f.threadsPage("")
	}
	return nil
}

func (f *fleetPane) sessionsLoaded(msg sessionsLoadedMsg) tea.Cmd {
	if msg.seq != f.seq {
		return nil
	}
	if msg.host == "" {
		f.firstLoading = false
		if msg.err != nil {
			f.err = errText(msg.err)
			for _, g := range f.groups {
				// Hosts an event already brought keep their page; the others say why they have none.
				if g.id != threadsGroup && g.settled != msg.seq {
					g.loading, g.errLine = false, f.err
				}
			}
			f.relayout()
			return nil
		}
		f.err = ""
		changed := false
		for _, hs := range msg.res.Hosts {
			g := f.group(hs.Host)
			if g.settled == msg.seq {
				// Its event carried this same page, and the pages loaded since must stay.
				continue
			}
			f.firstPage(g, hs)
			g.settled = msg.seq
			changed = f.pageHealth(g.id, g.errLine) || changed
		}
		if len(f.hosts) == 0 {
			// catalog.hosts has not answered: the answer's order is the runtime's too.
			ids := make([]string, len(msg.res.Hosts))
			for i, hs := range msg.res.Hosts {
				ids[i] = hs.Host
			}
			f.orderGroups(ids)
		}
		for _, g := range f.groups {
			if g.id != threadsGroup && g.settled != msg.seq {
				g.loading = false // a host the answer does not know (config changed meanwhile)
			}
		}
		f.relayout()
		return tea.Batch(f.selectIfNone(), f.healthChanged(changed))
	}
	g := f.group(msg.host)
	if msg.pageSeq != g.pageSeq {
		return nil
	}
	g.loading = false
	if msg.err != nil {
		g.errLine = errText(msg.err)
		f.relayout()
		return nil
	}
	for _, hs := range msg.res.Hosts {
		if hs.Host != g.id {
			continue
		}
		if hs.Error != nil {
			g.errLine = oneLine(string(hs.Error.Code) + ": " + hs.Error.Message)
		} else {
			g.errLine = ""
		}
		g.next = hs.NextCursor
		n := len(g.rows)
		g.rows = appendSessions(g.rows, g.id, hs.Sessions)
		g.pages++
		f.followPage(g, n)
	}
	f.relayout()
	return nil
}

// hostSettled shows one host's first page ahead of the others.
func (f *fleetPane) hostSettled(msg hostSettledMsg) tea.Cmd {
	if msg.seq != f.seq {
		return nil
	}
	g := f.group(msg.page.Host)
	f.firstPage(g, msg.page)
	g.settled = msg.seq
	f.relayout()
	return tea.Batch(f.selectIfNone(), f.healthChanged(f.pageHealth(g.id, g.errLine)))
}

// hostCapabilities returns a host's capabilities as catalog.hosts last gave them; ok is
// false while they are not known.
func (f *fleetPane) hostCapabilities(id string) (caps []string, ok bool) {
	for _, h := range f.hosts {
		if h.ID == id {
			return h.Capabilities, true
		}
	}
	return nil, false
}

// pageHealth records what a host's first page says of its health: a page with an error is
// an error, a page without one is ok. It reports whether the known health changed.
func (f *fleetPane) pageHealth(id, errLine string) bool {
	for i := range f.hosts {
		h := &f.hosts[i]
		if h.ID != id {
			continue
		}
		state, code, message := api.CatalogHealthOK, "", ""
		if errLine != "" {
			state = api.CatalogHealthError
			code, message, _ = strings.Cut(errLine, ": ")
		}
		if h.Health.State == state && h.Health.Code == code {
			return false
		}
		h.Health.State, h.Health.Code, h.Health.Message = state, code, message
		return true
	}
	return false
}

func (f *fleetPane) healthChanged(changed bool) tea.Cmd {
	if !changed {
		return nil
	}
	return emit(hostsHealthMsg{hosts: slices.Clone(f.hosts)})
}

// firstPage replaces a host's rows with its first page.
func (f *fleetPane) firstPage(g *fleetGroup, hs api.CatalogHostSessions) {
	g.next, g.loaded, g.loading = hs.NextCursor, true, false
	g.errLine = ""
	if hs.Error != nil {
		g.errLine = oneLine(string(hs.Error.Code) + ": " + hs.Error.Message)
	}
	g.rows, g.pages = appendSessions(nil, hs.Host, hs.Sessions), 1
}

func appendSessions(rows []fleetRow, host string, ss []api.CatalogSession) []fleetRow {
	for _, s := range ss {
		if slices.ContainsFunc(rows, func(r fleetRow) bool { return r.ref.ID == s.ID }) {
			continue
		}
		rows = append(rows, fleetRow{
			ref: threadRef{ID: s.ID, Host: host, Title: oneLine(s.Title), Status: s.Status, Waiting: s.WaitingOnApproval,
				Cwd: oneLine(s.Cwd), Harness: model.NativeHarness},
			branch: oneLine(s.GitBranch), updated: s.UpdatedAt,
		})
	}
	return rows
}

func (f *fleetPane) threadsLoaded(msg threadsLoadedMsg) tea.Cmd {
	g := f.group(threadsGroup)
	if msg.seq != f.seq || msg.pageSeq != g.pageSeq {
		return nil
	}
	g.loading = false
	if msg.err != nil {
		g.errLine = errText(msg.err)
		f.relayout()
		return nil
	}
	g.errLine = ""
	var rows []fleetRow
	for _, t := range msg.res.Threads {
		rows = append(rows, fleetRow{ref: f.c.refFromInfo(t), updated: t.UpdatedAt})
	}
	if msg.cursor == "" {
		if g.pages > 1 {
			// Later pages already loaded stay after the fresh first page, and so does their cursor.
			for _, r := range g.rows {
				if !slices.ContainsFunc(rows, func(n fleetRow) bool { return n.ref.ID == r.ref.ID }) {
					rows = append(rows, r)
				}
			}
		} else {
			g.next = msg.res.NextCursor
			g.pages = 1
		}
		g.rows, g.loaded = rows, true
	} else {
		n := len(g.rows)
		for _, r := range rows {
			if !slices.ContainsFunc(g.rows, func(o fleetRow) bool { return o.ref.ID == r.ref.ID }) {
				g.rows = append(g.rows, r)
			}
		}
		g.next = msg.res.NextCursor
		g.pages++
		f.followPage(g, n)
	}
	f.relayout()
	return f.selectIfNone()
}

// followPage moves a cursor that waited on the group's "more" line to the first row the
// page brought, as if the list had been that long all along.
func (f *fleetPane) followPage(g *fleetGroup, firstNew int) {
	if f.curKey == g.id+"/#more" && firstNew < len(g.rows) {
		f.curKey = g.id + "/" + g.rows[firstNew].ref.ID
	}
}

// fixNativeRefs points native threads of the threads group at the default catalog host, which
// is known only once catalog.hosts answered.
func (f *fleetPane) fixNativeRefs() {
	for _, g := range f.groups {
		for i := range g.rows {
			if g.rows[i].ref.Harness == model.NativeHarness && g.rows[i].ref.Host == "" {
				g.rows[i].ref.Host = f.c.defaultHost
			}
		}
	}
}

func (f *fleetPane) onEvent(ev api.Event) tea.Cmd {
	if ev.Type != api.EventThreadStatus || ev.Thread == "" {
		return nil
	}
	found := false
	for _, g := range f.groups {
		for i := range g.rows {
			if g.rows[i].ref.ID == ev.Thread {
				found = true
				if ev.Status != "" {
					g.rows[i].ref.Status = ev.Status
					if ev.Status != model.ThreadActive {
						g.rows[i].ref.Waiting = false
					}
				}
				g.rows[i].updated = f.c.now()
			}
		}
	}
	if found {
		return nil
	}
	// A thread the fleet has not seen: most likely a new delegation.
	if g := f.group(threadsGroup); !g.loading && f.query == "" {
		return f.threadsPage("")
	}
	return nil
}

func (f *fleetPane) remove(id string) {
	for _, g := range f.groups {
		g.rows = slices.DeleteFunc(g.rows, func(r fleetRow) bool { return r.ref.ID == id })
	}
	f.relayout()
}

// selectIfNone selects the first row once, so the other panes have something to show.
func (f *fleetPane) selectIfNone() tea.Cmd {
	if f.selKey != "" {
		return nil
	}
	for i, l := range f.lines {
		if l.kind == lineRow {
			f.cursor = i
			f.curKey = f.lineKey(l)
			f.scroll()
			return f.selectionChanged()
		}
	}
	return nil
}

func (f *fleetPane) filter() string {
	if f.searching {
		return strings.TrimSpace(f.search.Value())
	}
	return f.query
}

// relayout rebuilds the line model and puts the cursor back on what it was on.
func (f *fleetPane) relayout() {
	q := strings.ToLower(f.filter())
	f.lines = f.lines[:0]
	for gi, g := range f.groups {
		if g.id == threadsGroup && !g.loaded && !g.loading && len(g.rows) == 0 && g.errLine == "" {
			continue
		}
		f.lines = append(f.lines, fleetLine{kind: lineHeader, g: gi})
		if g.errLine != "" {
			f.lines = append(f.lines, fleetLine{kind: lineError, g: gi})
		}
		shown := 0
		for ri, r := range g.rows {
			if q != "" && !strings.Contains(strings.ToLower(r.ref.Title), q) && !strings.HasPrefix(r.ref.ID, q) {
				continue
			}
			f.lines = append(f.lines, fleetLine{kind: lineRow, g: gi, r: ri})
			shown++
		}
		switch {
		case g.next != "" || (g.loading && g.loaded):
			f.lines = append(f.lines, fleetLine{kind: lineMore, g: gi})
		case shown == 0 && g.errLine == "":
			f.lines = append(f.lines, fleetLine{kind: lineEmpty, g: gi})
		}
	}
	f.cursor = -1
	for i, l := range f.lines {
		if (l.kind == lineRow || l.kind == lineMore) && f.lineKey(l) == f.curKey {
			f.cursor = i
			break
		}
	}
	if f.cursor < 0 {
		f.cursor = f.nearestSelectable(0, 1)
	}
	f.scroll()
}

func (f *fleetPane) lineKey(l fleetLine) string {
	g := f.groups[l.g]
	if l.kind == lineMore {
		return g.id + "/#more"
	}
	if l.kind == lineRow {
		return g.id + "/" + g.rows[l.r].ref.ID
	}
	return ""
}

func (f *fleetPane) selectable(i int) bool {
	return i >= 0 && i < len(f.lines) && (f.lines[i].kind == lineRow || f.lines[i].kind == lineMore)
}

func (f *fleetPane) nearestSelectable(from, dir int) int {
	for i := from; i >= 0 && i < len(f.lines); i += dir {
		if f.selectable(i) {
			return i
		}
	}
	for i := from; i >= 0 && i < len(f.lines); i -= dir {
		if f.selectable(i) {
			return i
		}
	}
	return -1
}

func (f *fleetPane) bodyHeight() int {
	h := f.h
	if f.searching || f.query != "" {
		h--
	}
	return max(h, 1)
}

func (f *fleetPane) scroll() {
	bh := f.bodyHeight()
	if f.cursor >= 0 {
		// Keep the group header in view when the cursor is on the group's first row.
		top := f.cursor
		for top > 0 && !f.selectable(top-1) && f.cursor-top < 2 {
			top--
		}
		if top < f.offset {
			f.offset = top
		}
		if f.cursor >= f.offset+bh {
			f.offset = f.cursor - bh + 1
		}
	}
	f.offset = max(0, min(f.offset, len(f.lines)-bh))
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
		return f.moveTo(f.nearestSelectable(len(f.lines)-1, -1))
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

// move goes delta selectable lines; arriving on a "more" line loads that page.
func (f *fleetPane) move(delta int) tea.Cmd {
	if len(f.lines) == 0 {
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

// selectionChanged tells the root about a new selection once the cursor rests.
func (f *fleetPane) selectionChanged() tea.Cmd {
	ref, ok := f.Selected()
	if !ok || f.curKey == f.selKey {
		return nil
	}
	f.selKey = f.curKey
	f.selSeq++
	if f.c.debounce <= 0 {
		return emit(threadSelectedMsg{ref: ref})
	}
	seq := f.selSeq
	return tea.Tick(f.c.debounce, func(time.Time) tea.Msg { return selectSettledMsg{seq: seq} })
}

func (f *fleetPane) View() string {
	st := f.c.st
	var out []string
	if f.searching {
		f.search.Width = max(f.w-4, 1)
		out = append(out, f.search.View())
	} else if f.query != "" {
		out = append(out, st.Accent.Render("search: "+oneLine(f.query))+st.Muted.Render("  (esc clears)"))
	}
	if f.err != "" && len(f.lines) == 0 {
		out = append(out, st.Danger.Render(st.G.Danger+f.err))
	}
	bh := f.bodyHeight()
	for i := f.offset; i < len(f.lines) && i < f.offset+bh; i++ {
		out = append(out, f.renderLine(i))
	}
	return fit(strings.Join(out, "\n"), f.w, f.h)
}

func (f *fleetPane) renderLine(i int) string {
	st, l := f.c.st, f.lines[i]
	g := f.groups[l.g]
	w := f.w
	switch l.kind {
	case lineHeader:
		name := g.id
		if g.id == threadsGroup {
			name = "codexhost threads"
		}
		health := f.healthBadge(g)
		count := st.Muted.Render(fmt.Sprintf(" · %d", len(g.rows)))
		return truncate(st.HelpSection.Render(name)+"  "+health+count, w)
	case lineError:
		return truncate("  "+st.Danger.Render(st.G.Danger+g.errLine), w)
	case lineEmpty:
		what := "no sessions"
		if g.loading {
			what = "loading…"
		} else if f.filter() != "" {
			what = "no titles match"
		}
		return "  " + st.Muted.Render(what)
	case lineMore:
		text := st.G.More + "more"
		if g.loading {
			text = "loading more…"
		}
		return f.cursorPrefix(i) + st.Muted.Render(text)
	}
	r := g.rows[l.r]
	return f.renderRow(i, r, w)
}

func (f *fleetPane) healthBadge(g *fleetGroup) string {
	st := f.c.st
	switch {
	case g.errLine != "" || g.health == api.CatalogHealthError:
		return st.Danger.Render("✗ error")
	case g.loading && !g.loaded:
		return st.Muted.Render("… loading")
	case g.loaded || g.health == api.CatalogHealthOK:
		return st.OK.Render("✓ ok")
	}
	return st.Muted.Render("? unknown")
}

func (f *fleetPane) cursorPrefix(i int) string {
	if i == f.cursor {
		return f.c.st.G.Cursor
	}
	return f.c.st.G.NoCursor
}

func (f *fleetPane) renderRow(i int, r fleetRow, w int) string {
	st := f.c.st
	ageW := 4
	short := w < 40
	badge := f.c.badge(r.ref.Status, r.ref.Waiting, short)
	bw := badgeWidth
	if short {
		bw = 1
	}
	var branchW, cwdW int
	if w >= 60 {
		branchW = 12
	}
	if w >= 78 {
		cwdW = 18
	}
	titleW := w - 2 - bw - 1 - ageW - 1
	if branchW > 0 {
		titleW -= branchW + 1
	}
	if cwdW > 0 {
		titleW -= cwdW + 1
	}
	title := r.ref.Title
	if title == "" {
		title = shortID(r.ref.ID)
		if r.ref.Harness != "" && r.ref.Harness != model.NativeHarness {
			title += " (" + r.ref.Harness + ")"
		}
	}
	line := pad(title, max(titleW, 1))
	if cwdW > 0 {
		line += " " + st.Muted.Render(pad(tail(r.ref.Cwd, cwdW), cwdW))
	}
	if branchW > 0 {
		line += " " + st.Accent.Render(pad(r.branch, branchW))
	}
	line += " " + st.Muted.Render(padLeft(age(f.c.now(), r.updated), ageW))
	prefix := f.cursorPrefix(i)
	if i == f.cursor {
		sel := st.SelectedInactive
		if f.focused {
			sel = st.Selected
		}
		return prefix + badge + " " + sel.Render(ansi.Strip(line))
	}
	return prefix + badge + " " + line
}

// tail keeps the end of a path, which tells directories apart better than its start.
func tail(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	return ansi.TruncateLeft(s, sw-w+1, "…")
}
