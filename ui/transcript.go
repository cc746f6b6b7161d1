package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// transcriptPageSize is the messages asked per thread.read page.
const transcriptPageSize = 50

// tEntry is one message of a transcript, oldest first.
type tEntry struct {
	key        string // stable across reloads, to merge pages
	item       string // the runtime's message id, when it gives one (a streamed message's item)
	role       string
	text       string
	turn       string
	turnStatus string
	turnError  string    // why the turn failed or was interrupted, when known
	started    time.Time // when the turn started, when known
	at         time.Time
}

type (
	transcriptLoadedMsg struct {
		seq         int
		id          string
		older       bool
		entries     []tEntry
		olderCursor string
		info        *model.ThreadInfo // thread.read also reports the thread
		direct      bool              // read with thread.read after the catalog did not know it
		err         error
	}
	mdRenderedMsg struct {
		seq    int
		width  int
		blocks map[string][]string
	}
)

// transcriptPane shows the selected thread's messages: the newest page first, older pages as
// the view scrolls up, new ones as the runtime reports the thread changed.
type transcriptPane struct {
	c       *common
	w, h    int
	focused bool

	ref      threadRef
	has      bool
	lastTurn *model.TurnSummary // from thread.read: the outcome of the thread's latest turn
	seq      int
	err      string
	loaded   bool

	entries      []tEntry
	older        string // cursor of the next older page
	loading      bool
	loadingOlder bool
	queued       bool // a refresh was asked while one ran

	follow bool
	offset int // first body line shown

	md        map[string][]string
	mdPending map[string]bool
	mdWidth   int

	lines    []string // rendered body; nil when stale
	linesIDs int      // the id index's version the body was drawn with

	search transcriptSearch
	live   liveStream // text of the running turn not yet read (stream.go)
}

func newTranscriptPane(c *common) *transcriptPane {
	return &transcriptPane{c: c, md: map[string][]string{}, mdPending: map[string]bool{}, search: newTranscriptSearch(c)}
}

func (t *transcriptPane) Init() tea.Cmd { return nil }

func (t *transcriptPane) Title() string {
	if !t.has {
		return "Transcript"
	}
	return "Transcript · " + t.c.name(t.ref)
}

func (t *transcriptPane) SetSize(w, h int) {
	if w != t.w {
		t.lines = nil
	}
	t.w, t.h = w, h
	t.clamp()
}

func (t *transcriptPane) SetFocused(b bool) { t.focused = b }
func (t *transcriptPane) Capturing() bool   { return t.search.typing }

func (t *transcriptPane) Selected() (threadRef, bool) { return t.ref, t.has }

func (t *transcriptPane) ShortHelp() []key.Binding {
	k := t.c.keys.Transcript
	if t.search.typing {
		return t.searchHelp()
	}
	return append([]key.Binding{navHelp(k.Up, k.Down), k.PageUp, k.Follow}, t.searchHelp()...)
}

func (t *transcriptPane) FullHelp() [][]key.Binding { return [][]key.Binding{t.ShortHelp()} }

// Show switches to ref, or only updates what is known of it when it is already shown.
func (t *transcriptPane) Show(ref threadRef) tea.Cmd {
	if t.has && t.ref.ID == ref.ID && t.ref.Host == ref.Host {
		if t.loaded {
			// The pane read the thread itself and follows its events: its status is fresher.
			ref.Status, ref.Waiting = t.ref.Status, t.ref.Waiting
		}
		t.ref = ref
		return nil
	}
	t.ref, t.has = ref, true
	t.search.clear()
	t.seq++
	t.entries, t.older, t.err, t.loaded, t.lastTurn = nil, "", "", false, nil
	t.loadingOlder, t.queued = false, false
	t.follow, t.offset = true, 0
	t.md, t.mdPending, t.lines = map[string][]string{}, map[string]bool{}, nil
	t.loading = true
	return t.load("")
}

// load reads the newest page (cursor empty) or the older page cursor leads to.
func (t *transcriptPane) load(cursor string) tea.Cmd {
	seq, ref, c := t.seq, t.ref, t.c
	return func() tea.Msg {
		msg := transcriptLoadedMsg{seq: seq, id: ref.ID, older: cursor != ""}
		if ref.catalog() {
			var res api.CatalogTranscriptResult
			res, msg.err = call(c, api.CatalogTranscript, api.CatalogTranscriptParams{Thread: ref.ID, Host: ref.Host, Cursor: cursor})
			msg.entries, msg.olderCursor = turnEntries(res.Turns), res.OlderCursor
			// A thread of this runtime that no Codex catalog lists (a continued session's
			// supervised thread, say) is read the way any runtime thread is.
			if cursor != "" || !model.IsCode(msg.err, model.CodeThreadNotFound) {
				return msg
			}
			msg.err, msg.direct = nil, true
		}
		var res api.ThreadReadResult
		res, msg.err = call(c, api.ThreadRead, api.ThreadReadParams{Thread: ref.ID, View: model.ViewMessages, Limit: transcriptPageSize, Cursor: cursor})
		if msg.err == nil {
			msg.info = &res.Thread
		}
		msg.entries, msg.olderCursor = messageEntries(res.Messages), res.NextCursor
		return msg
	}
}

func (t *transcriptPane) refresh() tea.Cmd {
	if !t.has {
		return nil
	}
	if t.loading {
		t.queued = true
		return nil
	}
	t.loading = true
	return t.load("")
}

func (t *transcriptPane) loadOlder() tea.Cmd {
	if t.older == "" || t.loadingOlder || !t.loaded {
		return nil
	}
	t.loadingOlder = true
	t.lines = nil
	return t.load(t.older)
}

func (t *transcriptPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return t.handleKey(msg)
	case tea.WindowSizeMsg:
		return t.renderMarkdown()
	case transcriptLoadedMsg:
		if msg.seq != t.seq || msg.id != t.ref.ID {
			return nil // the selection moved on
		}
		return t.onLoaded(msg)
	case mdRenderedMsg:
		if msg.seq != t.seq || msg.width != t.mdWidth {
			return nil
		}
		for k, v := range msg.blocks {
			t.md[k] = v
		}
		t.lines = nil
		t.settle()
	case eventMsg:
		if msg.ev.Type == api.EventThreadDelta {
			return t.onDelta(msg.ev)
		}
		if (msg.ev.Type == api.EventThreadStatus || msg.ev.Type == api.EventThreadProgress) && t.has && msg.ev.Thread == t.ref.ID {
			if msg.ev.Status != "" {
				t.ref.Status = msg.ev.Status
			}
			if msg.ev.TurnStatus != "" {
				t.ref.Failed = msg.ev.TurnStatus == model.TurnFailed
			}
			return t.refresh()
		}
	case threadChangedMsg:
		if t.has && msg.id == t.ref.ID && !msg.archived {
			return t.refresh()
		}
	}
	return nil
}

func (t *transcriptPane) onLoaded(msg transcriptLoadedMsg) tea.Cmd {
	before := len(t.body())
	if msg.older {
		t.loadingOlder = false
	} else {
		t.loading = false
	}
	if msg.err != nil {
		t.err = errText(msg.err)
		t.lines = nil
		return nil
	}
	t.err = ""
	for _, e := range msg.entries {
		t.c.ids.add(e.turn)
	}
	if msg.info != nil && msg.info.LastTurn != nil {
		t.c.ids.add(msg.info.LastTurn.ID)
	}
	if msg.direct {
		t.ref.Host = "" // later pages come from thread.read too
	}
	if msg.info != nil {
		t.lastTurn = msg.info.LastTurn
		t.ref.Status, t.ref.Waiting = msg.info.Status, msg.info.WaitingOnApproval
		t.ref.Failed = lastFailed(*msg.info)
		if t.ref.Title == "" {
			t.ref.Title = oneLine(msg.info.Title)
		}
	}
	if msg.older {
		have := map[string]bool{}
		for _, e := range t.entries {
			have[e.key] = true
		}
		var fresh []tEntry
		for _, e := range msg.entries {
			if !have[e.key] {
				fresh = append(fresh, e)
			}
		}
		t.entries = append(fresh, t.entries...)
		t.older = msg.olderCursor
		t.lines = nil
		// Keep the lines on screen where they were.
		t.offset += len(t.body()) - before
	} else {
		t.entries, t.older = mergeNewest(t.entries, t.older, msg.entries, msg.olderCursor, t.loaded)
		t.loaded = true
		t.lines = nil
	}
	t.supersedeStream(msg)
	t.settle()
	var cmds []tea.Cmd
	if t.queued {
		t.queued = false
		t.loading = true
		cmds = append(cmds, t.load(""))
	}
	cmds = append(cmds, t.renderMarkdown())
	return tea.Batch(cmds...)
}

func (t *transcriptPane) bodyHeight() int { return max(t.h-1-t.search.rows(), 1) }

// settle keeps the view on the newest line while following.
func (t *transcriptPane) settle() {
	if t.follow {
		t.offset = len(t.body()) - t.bodyHeight()
	}
	t.clamp()
}

func (t *transcriptPane) clamp() {
	t.offset = max(0, min(t.offset, len(t.body())-t.bodyHeight()))
}

func (t *transcriptPane) handleKey(k tea.KeyMsg) tea.Cmd {
	if cmd, ok := t.searchKey(k); ok {
		return cmd
	}
	km := t.c.keys.Transcript
	bh := t.bodyHeight()
	switch {
	case key.Matches(k, km.Up):
		t.follow = false
		if t.offset == 0 {
			return t.loadOlder()
		}
		t.offset--
	case key.Matches(k, km.PageUp):
		t.follow = false
		if t.offset == 0 {
			return t.loadOlder()
		}
		t.offset -= bh - 1
	case key.Matches(k, km.Down):
		t.offset++
	case key.Matches(k, km.PageDown):
		t.offset += bh - 1
	case key.Matches(k, km.Top):
		t.follow = false
		t.offset = 0
	case key.Matches(k, km.Follow):
		t.follow = true
		t.settle()
		return t.refresh()
	default:
		return nil
	}
	t.clamp()
	return nil
}

// renderMarkdown renders, in a command, the assistant messages not yet rendered at this width.
func (t *transcriptPane) renderMarkdown() tea.Cmd {
	width := t.w - 2
	if t.c.plain || width < 10 || !t.has {
		return nil
	}
	if t.mdWidth != width {
		t.md, t.mdPending, t.mdWidth = map[string][]string{}, map[string]bool{}, width
		t.lines = nil
	}
	var jobs []mdJob
	for _, e := range t.entries {
		if e.role == model.RoleAssistant && t.md[e.key] == nil && !t.mdPending[e.key] {
			jobs = append(jobs, mdJob{key: e.key, text: e.text})
			t.mdPending[e.key] = true
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	seq, style, profile := t.seq, t.c.st.Markdown, t.c.profile
	return func() tea.Msg {
		return mdRenderedMsg{seq: seq, width: width, blocks: renderMarkdown(style, profile, width, jobs)}
	}
}

// body is every line of the transcript at the current width, built once per change.
func (t *transcriptPane) body() []string {
	t.c.ids.build()
	if t.lines != nil && t.linesIDs == t.c.ids.version {
		return t.lines
	}
	t.linesIDs = t.c.ids.version
	st := t.c.st
	w := max(t.w, 1)
	lines := []string{}
	if t.loadingOlder {
		lines = append(lines, st.Muted.Render("loading older messages…"))
	} else if t.older != "" {
		lines = append(lines, st.Muted.Render("↑ older messages: scroll up to load"))
	}
	turn := ""
	var last tEntry
	for _, e := range t.entries {
		e = t.withOutcome(e)
		if e.turn != turn && e.turn != "" {
			lines = t.endTurn(lines, last)
			turn = e.turn
			head := "turn " + t.c.ids.short(e.turn)
			if w := turnWords(e.turnStatus); w != "" {
				head += " · " + w
			}
			if !e.at.IsZero() {
				head += " · " + e.at.In(t.c.loc).Format("2006-01-02 15:04")
			}
			lines = append(lines, st.Muted.Render(rule(head, w)))
		}
		switch e.role {
		case model.RoleUser:
			lines = append(lines, st.User.Render("▌ you"))
			for _, l := range wrap(e.text, w-2) {
				lines = append(lines, st.User.Render("▌")+" "+l)
			}
		default:
			lines = append(lines, st.Assistant.Render("◆ "+roleName(e.role)))
			body := t.md[e.key]
			if body == nil {
				body = wrap(e.text, w-2)
			}
			for _, l := range body {
				lines = append(lines, "  "+l)
			}
		}
		lines = append(lines, "")
		last = e
	}
	lines = t.endTurn(lines, last)
	lines = t.lastTurnAlone(lines, turn)
	lines = t.appendStream(lines, turn)
	t.lines = lines
	return lines
}

func roleName(r string) string {
	if r == "" {
		return "assistant"
	}
	return oneLine(r)
}

// rule is a muted divider with a label: "── label ─────".
func rule(label string, w int) string {
	s := "── " + label + " "
	return pad(s+strings.Repeat("─", max(w-len([]rune(s)), 0)), w)
}

func (t *transcriptPane) View() string {
	st := t.c.st
	if !t.has {
		return fit(st.Muted.Render("Select a thread in the fleet (enter), or open one by id ("+t.c.keys.Global.Open.Help().Key+")."), t.w, t.h)
	}
	head := t.c.refBadge(t.ref.Status, t.ref.Waiting, t.ref.Failed, false) + " "
	switch {
	case t.follow:
		head += st.OK.Render("● live")
	default:
		head += st.Muted.Render("paused · " + t.c.keys.Transcript.Follow.Help().Key + " follows")
	}
	if r := t.runningHead(); r != "" {
		head += " " + r
	}
	if t.loading {
		head += st.Muted.Render(" · loading…")
	}
	if note := t.c.linkNote(t.ref); note != "" {
		head += st.Muted.Render(" · " + note)
	}
	head += st.Muted.Render(" · " + t.ref.ID)
	out := []string{truncate(head, t.w)}
	body := t.body()
	switch {
	case t.err != "":
		for _, l := range wrap(st.G.Danger+t.err, t.w) {
			out = append(out, st.Danger.Render(l))
		}
	case t.loaded && len(t.entries) == 0:
		out = append(out, st.Muted.Render("no messages yet"))
	}
	bh := t.bodyHeight() - (len(out) - 1)
	t.search.sync(body)
	for i := t.offset; i < len(body) && i < t.offset+bh; i++ {
		out = append(out, t.search.highlight(st, i, body[i]))
	}
	if t.search.active() {
		out = append(fitLines(out, t.w, t.h-1), t.searchLine())
	}
	return fit(strings.Join(out, "\n"), t.w, t.h)
}
