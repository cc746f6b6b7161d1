package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/runtime/api"
)

// listSpec makes a listPane show one kind of row.
type listSpec[T any] struct {
	title  string
	empty  string
	load   func(c *common) ([]T, error)
	key    func(T) string
	row    func(c *common, item T, width int) string
	detail func(c *common, item T) string // the cursor row's full story, in the pane's last line
	thread func(T) string                 // the thread a row is about, opened by Select
	keys   func(c *common) []key.Binding  // the pane's own keys, for the footer
}

type listLoadedMsg[T any] struct {
	seq   int
	items []T
	err   error
}

// listPane is a cursor list over rows one runtime call returns; the watch lists are two of
// them. Its replies come back addressed to it (paneMsg) so that instances stay apart.
type listPane[T any] struct {
	c       *common
	id      paneID
	spec    listSpec[T]
	w, h    int
	focused bool

	items   []T
	cursor  int
	curKey  string
	offset  int
	seq     int
	loading bool
	dirty   bool
	loaded  bool
	err     string
}

func newListPane[T any](c *common, id paneID, spec listSpec[T]) *listPane[T] {
	return &listPane[T]{c: c, id: id, spec: spec}
}

func (p *listPane[T]) Init() tea.Cmd { return p.reload() }

func (p *listPane[T]) Title() string {
	if !p.loaded {
		return p.spec.title
	}
	return p.spec.title + " · " + itoa(len(p.items))
}

func (p *listPane[T]) SetSize(w, h int)  { p.w, p.h = w, h; p.scroll() }
func (p *listPane[T]) SetFocused(b bool) { p.focused = b }
func (p *listPane[T]) Capturing() bool   { return false }

func (p *listPane[T]) Selected() (threadRef, bool) { return threadRef{}, false }

// current is the row under the cursor.
func (p *listPane[T]) current() (T, bool) {
	if p.cursor < 0 || p.cursor >= len(p.items) {
		var zero T
		return zero, false
	}
	return p.items[p.cursor], true
}

func (p *listPane[T]) ShortHelp() []key.Binding {
	k := p.c.keys.List
	b := []key.Binding{navHelp(k.Up, k.Down), k.Select}
	if p.spec.keys != nil {
		b = append(b, p.spec.keys(p.c)...)
	}
	return b
}

func (p *listPane[T]) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

func (p *listPane[T]) reload() tea.Cmd {
	if p.loading {
		p.dirty = true
		return nil
	}
	p.loading = true
	p.seq++
	seq, id, c, load := p.seq, p.id, p.c, p.spec.load
	return func() tea.Msg {
		items, err := load(c)
		return paneMsg{to: id, inner: listLoadedMsg[T]{seq: seq, items: items, err: err}}
	}
}

func (p *listPane[T]) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return p.handleKey(msg)
	case listLoadedMsg[T]:
		if msg.seq != p.seq {
			return nil
		}
		p.loading = false
		if msg.err != nil {
			p.err = errText(msg.err)
		} else {
			p.err, p.items, p.loaded = "", msg.items, true
			for _, it := range p.items {
				if p.spec.thread != nil {
					p.c.ids.add(p.spec.thread(it))
				}
			}
			p.restore()
		}
		if p.dirty {
			p.dirty = false
			return p.reload()
		}
	case eventMsg:
		// Watches change when threads stop, when notifications are delivered, and the
		// watch engine reports every other change of a watch's state.
		switch msg.ev.Type {
		case api.EventThreadStatus, api.EventClientLog, api.EventWatchState, api.EventTaskStatus:
			return p.reload()
		}
	case threadChangedMsg, watchAddedMsg:
		return p.reload()
	}
	return nil
}

func (p *listPane[T]) restore() {
	p.cursor = max(0, min(p.cursor, len(p.items)-1))
	for i, it := range p.items {
		if p.spec.key(it) == p.curKey {
			p.cursor = i
			break
		}
	}
	p.mark()
}

func (p *listPane[T]) mark() {
	if p.cursor >= 0 && p.cursor < len(p.items) {
		p.curKey = p.spec.key(p.items[p.cursor])
	}
	p.scroll()
}

func (p *listPane[T]) bodyHeight() int { return max(p.h-1, 1) }

func (p *listPane[T]) scroll() {
	bh := p.bodyHeight()
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+bh {
		p.offset = p.cursor - bh + 1
	}
	p.offset = max(0, min(p.offset, len(p.items)-bh))
}

func (p *listPane[T]) handleKey(k tea.KeyMsg) tea.Cmd {
	km := p.c.keys.List
	move := func(i int) {
		if len(p.items) > 0 {
			p.cursor = max(0, min(i, len(p.items)-1))
			p.mark()
		}
	}
	switch {
	case key.Matches(k, km.Up):
		move(p.cursor - 1)
	case key.Matches(k, km.Down):
		move(p.cursor + 1)
	case key.Matches(k, km.PageUp):
		move(p.cursor - p.bodyHeight())
	case key.Matches(k, km.PageDown):
		move(p.cursor + p.bodyHeight())
	case key.Matches(k, km.Top):
		move(0)
	case key.Matches(k, km.Bottom):
		move(len(p.items) - 1)
	case key.Matches(k, km.Select):
		if p.cursor < len(p.items) && p.spec.thread != nil {
			return emit(openThreadMsg{id: p.spec.thread(p.items[p.cursor])})
		}
	}
	return nil
}

func (p *listPane[T]) View() string {
	st := p.c.st
	var out []string
	switch {
	case p.err != "":
		out = append(out, st.Danger.Render(truncate(st.G.Danger+p.err, p.w)))
	case !p.loaded:
		out = append(out, st.Muted.Render("loading…"))
	case len(p.items) == 0:
		out = append(out, st.Muted.Render(p.spec.empty))
	}
	bh := p.bodyHeight() - len(out)
	for i := p.offset; i < len(p.items) && i < p.offset+bh; i++ {
		cur := st.G.NoCursor
		row := p.spec.row(p.c, p.items[i], p.w-2)
		if i == p.cursor {
			cur = st.G.Cursor
			if p.focused {
				row = st.Selected.Render(row)
			}
		}
		out = append(out, cur+row)
	}
	out = fitLines(out, p.w, p.bodyHeight())
	if p.cursor < len(p.items) && p.spec.detail != nil {
		out = append(out, st.Muted.Render(truncate(p.spec.detail(p.c, p.items[p.cursor]), p.w)))
	}
	return strings.Join(fitLines(out, p.w, p.h), "\n")
}
