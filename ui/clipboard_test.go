package ui

import (
	"bytes"
	"encoding/base64"
	"testing"
)

func TestOSC52BytesPlainAndInsideTmux(t *testing.T) {
	t.Parallel()
	id := "019a0000-0000-7000-8000-0000000000a1"
	b64 := base64.StdEncoding.EncodeToString([]byte(id))
	if got, want := string(osc52(id, false)), "\x1b]52;c;"+b64+"\a"; got != want {
		t.Fatalf("plain: %q, want %q", got, want)
	}
	want := "\x1b]52;c;" + b64 + "\a" + "\x1bPtmux;\x1b\x1b]52;c;" + b64 + "\a\x1b\\"
	if got := string(osc52(id, true)); got != want {
		t.Fatalf("tmux: %q, want %q", got, want)
	}
}

// y copies the selected thread's id, Y its link, each through the program's output, with a
// confirmation in the status bar naming what was copied.
func TestCopyKeysWriteTheIdAndLinkToTheTerminal(t *testing.T) {
	t.Parallel()
	for _, tmux := range []bool{false, true} {
		rt := newFake()
		fleetFixture(rt)
		var out bytes.Buffer
		env := map[string]string{}
		if tmux {
			env["TMUX"] = "/tmp/tmux-1000/default,1,0"
		}
		a := newTestApp(t, rt, 120, 35, func(o *Options) {
			o.Clipboard = &out
			o.Getenv = func(k string) string { return env[k] }
		})
		ref, ok := a.fleet.Selected()
		if !ok || ref.ID != idA {
			t.Fatalf("selected %+v %v", ref, ok)
		}
		a.press(a.km.Thread.Copy)
		if got := out.String(); got != string(osc52(idA, tmux)) {
			t.Fatalf("tmux %v: wrote %q", tmux, got)
		}
		mustContain(t, a.view(), "sent "+a.c.short(idA)+" to the terminal's clipboard (i shows it in full)")
		out.Reset()
		a.press(a.km.Thread.CopyLink)
		if got := out.String(); got != string(osc52("codex://threads/"+idA, tmux)) {
			t.Fatalf("tmux %v: link wrote %q", tmux, got)
		}
		mustContain(t, a.view(), "sent the link of "+a.c.short(idA)+" to the terminal's clipboard")
		mustNotContain(t, a.view(), "copied")
	}
}

func TestCopyWithoutASelectionSaysSo(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	var out bytes.Buffer
	a := newTestApp(t, rt, 120, 35, func(o *Options) { o.Clipboard = &out })
	a.press(a.km.Global.Watches) // the watch lists select watches, not threads
	a.press(a.km.Thread.Copy)
	if out.Len() != 0 {
		t.Fatalf("wrote %q", out.String())
	}
	mustContain(t, a.view(), "copy: select a thread first")
}
