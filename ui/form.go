package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// formField is a text input, or a choice among options (the harness picker).
type formField struct {
	name    string
	label   string
	input   textinput.Model
	choice  bool
	choices []string
	pick    int
	loading bool
	err     string
}

func (c *common) textField(name, label, value, placeholder string) *formField {
	ti := textinput.New()
	ti.Prompt = ""
	ti.SetValue(value)
	ti.Placeholder = placeholder
	ti.CharLimit = 64 << 10
	ti.TextStyle = c.st.Text
	ti.PlaceholderStyle = c.st.Muted
	// A blinking cursor would tick forever; a steady one costs nothing.
	ti.Cursor.SetMode(cursor.CursorStatic)
	return &formField{name: name, label: label, input: ti}
}

func choiceField(name, label string) *formField {
	return &formField{name: name, label: label, choice: true, loading: true}
}

func (f *formField) value() string {
	if f.choice {
		if f.pick < len(f.choices) {
			return f.choices[f.pick]
		}
		return ""
	}
	return strings.TrimSpace(f.input.Value())
}

// formDialog collects an action's inputs; submit turns them into the action or says what is
// wrong. It does no I/O.
type formDialog struct {
	c      *common
	open   bool
	title  string
	note   string
	fields []*formField
	focus  int
	err    string
	submit func(vals map[string]string) (action, error)
	seq    int // identity of the form, for replies that fill its choices
}

func (f *formDialog) Show(title, note string, fields []*formField, submit func(map[string]string) (action, error)) tea.Cmd {
	f.seq++
	f.open, f.title, f.note, f.fields, f.submit, f.err = true, title, note, fields, submit, ""
	f.focus = 0
	// Start on the first field a person has to fill.
	for i, fl := range fields {
		if fl.choice || fl.value() == "" {
			f.focus = i
			break
		}
	}
	return f.focusField()
}

func (f *formDialog) focusField() tea.Cmd {
	var cmd tea.Cmd
	for i, fl := range f.fields {
		if fl.choice {
			continue
		}
		if i == f.focus {
			cmd = fl.input.Focus()
		} else {
			fl.input.Blur()
		}
	}
	return cmd
}

// SetChoices fills a choice field when its options arrive.
func (f *formDialog) SetChoices(seq int, name string, choices []string, err string) {
	if !f.open || seq != f.seq {
		return
	}
	for _, fl := range f.fields {
		if fl.name == name {
			fl.choices, fl.loading, fl.err, fl.pick = choices, false, err, 0
		}
	}
}

// HandleKey edits the form; it returns the action when the form was submitted and valid.
func (f *formDialog) HandleKey(k tea.KeyMsg) (act action, closed bool, cmd tea.Cmd) {
	km := f.c.keys.Input
	cur := f.fields[f.focus]
	switch {
	case key.Matches(k, km.Cancel):
		f.open = false
		return nil, true, nil
	case key.Matches(k, km.Submit):
		vals := map[string]string{}
		for _, fl := range f.fields {
			vals[fl.name] = fl.value()
		}
		a, err := f.submit(vals)
		if err != nil {
			f.err = errText(err)
			return nil, false, nil
		}
		f.open = false
		return a, true, nil
	case key.Matches(k, km.NextField):
		f.focus = (f.focus + 1) % len(f.fields)
		return nil, false, f.focusField()
	case key.Matches(k, km.PrevField):
		f.focus = (f.focus + len(f.fields) - 1) % len(f.fields)
		return nil, false, f.focusField()
	case cur.choice && key.Matches(k, km.NextPick):
		if len(cur.choices) > 0 {
			cur.pick = (cur.pick + 1) % len(cur.choices)
		}
		return nil, false, nil
	case cur.choice && key.Matches(k, km.PrevPick):
		if len(cur.choices) > 0 {
			cur.pick = (cur.pick + len(cur.choices) - 1) % len(cur.choices)
		}
		return nil, false, nil
	case cur.choice:
		// Typing a choice's first letter picks it.
		if k.Type == tea.KeyRunes && len(k.Runes) == 1 {
			for i, ch := range cur.choices {
				if strings.HasPrefix(ch, string(k.Runes)) {
					cur.pick = i
					break
				}
			}
		}
		return nil, false, nil
	}
	f.err = ""
	cur.input, cmd = cur.input.Update(k)
	return nil, false, cmd
}

func (f *formDialog) ShortHelp() []key.Binding {
	km := f.c.keys.Input
	b := []key.Binding{km.Submit, km.Cancel}
	if len(f.fields) > 1 {
		b = append(b, km.NextField)
	}
	if f.open && f.fields[f.focus].choice {
		b = append(b, navHelp(km.PrevPick, km.NextPick, "choose"))
	}
	return b
}

func (f *formDialog) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

// View draws the form at most w cells wide.
func (f *formDialog) View(w int) []string {
	st := f.c.st
	bw := min(w, 84)
	inner := bw - 4
	labelW := 0
	for _, fl := range f.fields {
		labelW = max(labelW, ansiWidth(fl.label))
	}
	labelW = min(labelW+1, inner/3)
	var body []string
	if f.note != "" {
		body = append(body, wrapStyled(st.Muted, f.note, inner)...)
		body = append(body, "")
	}
	for i, fl := range f.fields {
		mark := "  "
		label := st.Muted.Render(pad(fl.label, labelW))
		if i == f.focus {
			mark = st.Accent.Render(st.G.Cursor)
			label = st.Accent.Render(pad(fl.label, labelW))
		}
		vw := max(inner-2-labelW-1, 1)
		var val string
		switch {
		case fl.choice && fl.loading:
			val = st.Muted.Render("loading…")
		case fl.choice && fl.err != "":
			val = st.Danger.Render(st.G.Danger + fl.err)
		case fl.choice:
			val = choiceLine(f, fl, i == f.focus, vw)
		default:
			fl.input.Width = max(vw-1, 1)
			val = fl.input.View()
		}
		body = append(body, mark+label+" "+truncate(val, vw))
	}
	if f.err != "" {
		body = append(body, "")
		body = append(body, wrapStyled(st.Danger, st.G.Danger+f.err, inner)...)
	}
	return dialogBox(f.title, body, bw, st.DialogBorder, st.TitleFocused)
}

// choiceLine shows the options with the picked one marked, in text as well as colour.
func choiceLine(f *formDialog, fl *formField, focused bool, w int) string {
	st := f.c.st
	if len(fl.choices) == 0 {
		return st.Muted.Render("none available")
	}
	var parts []string
	for i, ch := range fl.choices {
		if i == fl.pick {
			s := "[" + ch + "]"
			if focused {
				s = st.Selected.Render(s)
			} else {
				s = st.Accent.Render(s)
			}
			parts = append(parts, s)
			continue
		}
		parts = append(parts, st.Muted.Render(" "+ch+" "))
	}
	return truncate(strings.Join(parts, " "), w)
}

func wrapStyled(s interface{ Render(...string) string }, text string, w int) []string {
	var out []string
	for _, l := range wrap(text, w) {
		out = append(out, s.Render(l))
	}
	return out
}
