package ui

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
)

// Copying goes through the terminal, not a local clipboard tool: an OSC 52 sequence asks the
// terminal the app draws on to set its clipboard, which works over ssh and inside tmux.

// osc52 is the sequence that puts text on the clipboard. Inside tmux the plain sequence
// reaches the outer terminal when tmux has set-clipboard on; the same sequence in tmux's
// passthrough (each ESC doubled) reaches it when tmux allows passthrough. Both are sent, so
// either setting works; setting the clipboard twice to the same text is harmless.
func osc52(text string, tmux bool) []byte {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
	if !tmux {
		return []byte(seq)
	}
	return []byte(seq + "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\")
}

// clipboardOf is where copy sequences go and whether they must pass tmux: the program's
// terminal (standard output) unless the options name another writer.
func clipboardOf(o Options) (io.Writer, bool) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	w := o.Clipboard
	if w == nil {
		w = os.Stdout
	}
	return w, getenv("TMUX") != ""
}

// copyKey copies the selected thread's id (y) or its codex://threads/ link (Y), which `o`
// and every subcommand taking a thread accept.
func (a *App) copyKey(k tea.KeyMsg) (tea.Cmd, bool) {
	t := a.c.keys.Thread
	if !key.Matches(k, t.Copy, t.CopyLink) {
		return nil, false
	}
	ref, ok := a.panes[a.focus].Selected()
	if !ok {
		return status(levelError, "copy: select a thread first (fleet, transcript or lineage pane)"), true
	}
	text, shown := ref.ID, a.c.short(ref.ID)
	if key.Matches(k, t.CopyLink) {
		text = model.ThreadID(ref.ID).Link()
		shown = "the link of " + shown
	}
	return a.writeClipboard(text, shown), true
}

// writeClipboard writes the copy sequence in a command, as one write: the renderer writes
// whole frames the same way, so the two never interleave inside a sequence.
func (a *App) writeClipboard(text, shown string) tea.Cmd {
	w, seq := a.c.clipboard, osc52(text, a.c.tmux)
	info := a.c.keys.Global.Info.Help().Key
	return func() tea.Msg {
		if _, err := w.Write(seq); err != nil {
			return statusMsg{level: levelError, text: "copy: the terminal took no output: " + err.Error()}
		}
		// Nothing answers an OSC 52: a terminal, or tmux with set-clipboard external, may drop
		// it. So the bar says what was done, not that the clipboard holds it, and where the
		// text can be read to copy it by hand.
		return statusMsg{level: levelOK, text: fmt.Sprintf("sent %s to the terminal's clipboard (%s shows it in full)", shown, info)}
	}
}
