package ui

// Loading the fleet: hosts, first pages (each host as it settles), further pages, the
// runtime's own threads, and the events and health that change them.

import (
	"context"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// reload reads every group's first page again.
func (f *fleetPane) reload() tea.Cmd {
	f.loadedAt = f.c.now()
	f.seq++
	seq, q, c := f.seq, f.searchText(), f.c
	for _, g := range f.groups {
		g.loading = true
		g.pageSeq++
	}
	f.firstLoading = true
	f.relayout()
	hosts := func() tea.Msg {
		res, err := call(c, api.CatalogHosts, struct{}{})
		return hostsLoadedMsg{seq: seq, res: res, err: err}
	}
	return tea.Batch(hosts, f.firstPages(seq, q), f.threadsPage("", false))
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
			res, err := call(c, api.CatalogSessions.Method, p)
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
			res, err := api.CatalogSessions.CallEvents(ctx, pr, p, func(ev api.Event) {
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
//
// keep: the host pages are not read with it, so rows leaving the group for a host stay until
// a host page shows them (keepMoving).
func (f *fleetPane) threadsPage(cursor string, keep bool) tea.Cmd {
	g := f.group(threadsGroup)
	g.loading = true
	g.pageSeq++
	seq, pageSeq, c := f.seq, g.pageSeq, f.c
	return func() tea.Msg {
		res, err := call(c, api.ThreadList, api.ThreadListParams{AnyCwd: true, OutsideCatalog: true, Sort: "updated-desc", Limit: fleetPageSize, Cursor: cursor})
		return threadsLoadedMsg{seq: seq, pageSeq: pageSeq, cursor: cursor, keep: keep, res: res, err: err}
	}
}

// nextPage loads the next page of group g through its cursor.
func (f *fleetPane) nextPage(g *fleetGroup) tea.Cmd {
	if g.loading || g.next == "" {
		return nil
	}
	if g.id == threadsGroup {
		return f.threadsPage(g.next, false)
	}
	g.loading = true
	g.pageSeq++
	seq, pageSeq, host, cursor, q, c := f.seq, g.pageSeq, g.id, g.next, f.searchText(), f.c
	return func() tea.Msg {
		res, err := call(c, api.CatalogSessions.Method, api.CatalogSessionsParams{Host: host, Cursor: cursor, Search: q, Limit: fleetPageSize})
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
		return tea.Batch(f.reselect(), f.healthChanged(changed), f.applyPending())
	}
	g := f.group(msg.host)
	if msg.pageSeq != g.pageSeq {
		return nil
	}
	g.loading = false
	if msg.err != nil {
		g.errLine = errText(msg.err)
		f.stopPaging()
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
		if hs.Total > 0 {
			g.total = hs.Total
		}
		n := len(g.rows)
		g.rows = appendSessions(g.rows, g.id, hs.Sessions)
		g.pages++
		f.followPage(g, n)
	}
	f.relayout()
	return f.applyPending()
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
	return tea.Batch(f.reselect(), f.healthChanged(f.pageHealth(g.id, g.errLine)), f.applyPending())
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

func appendSessions(rows []fleetRow, host string, ss []api.CatalogSession) []fleetRow {
	// A set, not a scan per session: a host of 10,000 rows made this quadratic (seconds).
	have := make(map[string]bool, len(rows)+len(ss))
	for _, r := range rows {
		have[r.ref.ID] = true
	}
	for _, s := range ss {
		if have[s.ID] || (s.CodexhostThread != "" && have[s.CodexhostThread]) {
			continue
		}
		r := fleetRow{ref: sessionRef(host, s), branch: oneLine(s.GitBranch), updated: s.UpdatedAt}
		have[r.ref.ID] = true
		rows = append(rows, r)
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
		f.stopPaging()
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
			fresh := make(map[string]bool, len(rows))
			for _, r := range rows {
				fresh[r.ref.ID] = true
			}
			for _, r := range g.rows {
				if !fresh[r.ref.ID] {
					rows = append(rows, r)
				}
			}
		} else {
			g.next = msg.res.NextCursor
			g.pages = 1
		}
		if msg.keep {
			rows = f.keepMoving(g.rows, rows)
		}
		g.rows, g.loaded = rows, true
	} else {
		n := len(g.rows)
		have := make(map[string]bool, n+len(rows))
		for _, o := range g.rows {
			have[o.ref.ID] = true
		}
		for _, r := range rows {
			if !have[r.ref.ID] {
				have[r.ref.ID] = true
				g.rows = append(g.rows, r)
			}
		}
		g.next = msg.res.NextCursor
		g.pages++
		f.followPage(g, n)
	}
	f.relayout()
	return tea.Batch(f.reselect(), f.applyPending())
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
	if ev.Type == api.EventThreadUsage {
		f.setUsage(ev.Thread, ev.Usage)
		return nil
	}
	if ev.Type != api.EventThreadStatus || ev.Thread == "" {
		return nil
	}
	found := false
	for _, g := range f.groups {
		for i := range g.rows {
			if g.rows[i].ref.ID == ev.Thread {
				found = true
				if ev.TurnStatus != "" {
					g.rows[i].ref.Failed = ev.TurnStatus == model.TurnFailed
				}
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
		// The running count and any status filter follow the new state.
		f.relayout()
		return nil
	}
	// A thread the fleet has not seen: most likely a new delegation, which a native one
	// brings to its host's page.
	if f.searchText() != "" {
		return nil
	}
	if cmd := f.reconcile(reconcileOnFocus); cmd != nil {
		return cmd
	}
	cmds := []tea.Cmd{f.recheckSoon()}
	if g := f.group(threadsGroup); !g.loading {
		cmds = append(cmds, f.threadsPage("", true))
	}
	return tea.Batch(cmds...)
}

func (f *fleetPane) remove(id string) {
	for _, g := range f.groups {
		g.rows = slices.DeleteFunc(g.rows, func(r fleetRow) bool { return r.ref.ID == id })
	}
	f.relayout()
}

// reselect follows the rows a page changed: the first row is selected once, so the other
// panes have something to show, and a selection the page took away moves on.
func (f *fleetPane) reselect() tea.Cmd {
	if f.selKey == "" {
		return f.selectIfNone()
	}
	return f.selectionChanged()
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

// setUsage shows a thread's new usage total, as its thread.usage event says, on its row in
// the codexhost group and on the row of the host that lists it.
func (f *fleetPane) setUsage(id string, u *model.Usage) {
	for _, g := range f.groups {
		for i := range g.rows {
			if g.rows[i].ref.ID == id && g.rows[i].ref.Metered {
				g.rows[i].ref.Usage = u
			}
		}
	}
	f.shareUsage()
}

// shareUsage marks the host rows of codexhost's native threads as metered, with the usage
// the codexhost group read or an event brought, whichever counted more (usage only grows).
func (f *fleetPane) shareUsage() {
	metered := map[string]*model.Usage{}
	for _, r := range f.group(threadsGroup).rows {
		if r.ref.Metered {
			metered[r.ref.ID] = r.ref.Usage
		}
	}
	for _, g := range f.groups {
		if g.id == threadsGroup {
			continue
		}
		for i := range g.rows {
			u, ok := metered[g.rows[i].ref.ID]
			if !ok {
				continue
			}
			ref := &g.rows[i].ref
			ref.Metered = true
			if ref.Usage == nil || (u != nil && u.Total > ref.Usage.Total) {
				ref.Usage = u
			}
		}
	}
}
