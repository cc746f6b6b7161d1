package keymap

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

func TestDefaultIsValidAndEveryActionHasKeysAndHelp(t *testing.T) {
	km := Default()
	if errs := Validate(&km); len(errs) > 0 {
		t.Fatalf("default keymap conflicts: %v", errs)
	}
	seen := map[string]bool{}
	for _, a := range km.Actions() {
		if seen[a.Name] {
			t.Fatalf("action %s listed twice", a.Name)
		}
		seen[a.Name] = true
		h := a.Binding.Help()
		if len(a.Binding.Keys()) == 0 || h.Key == "" || h.Desc == "" {
			t.Fatalf("%s: keys %v help %+v", a.Name, a.Binding.Keys(), h)
		}
		for _, k := range a.Binding.Keys() {
			if _, ok := Msg(k); !ok {
				t.Fatalf("%s: %q is no key a terminal reports", a.Name, k)
			}
		}
	}
}

// TestActionsListEveryBinding keeps Actions (which config, help and the subcommand check
// use) in step with the scope structs.
func TestActionsListEveryBinding(t *testing.T) {
	km := Default()
	ptrs := map[*key.Binding]bool{}
	for _, a := range km.Actions() {
		ptrs[a.Binding] = true
	}
	v := reflect.ValueOf(&km).Elem()
	n := 0
	for i := range v.NumField() {
		scope := v.Field(i)
		for j := range scope.NumField() {
			f := scope.Field(j)
			b, ok := f.Addr().Interface().(*key.Binding)
			if !ok {
				continue
			}
			n++
			if !ptrs[b] {
				t.Fatalf("%s.%s is missing from Actions", v.Type().Field(i).Name, scope.Type().Field(j).Name)
			}
		}
	}
	if n != len(ptrs) {
		t.Fatalf("%d bindings, %d actions", n, len(ptrs))
	}
}

func TestNavigationActionsHaveNoSubcommandAndOthersHaveOne(t *testing.T) {
	km := Default()
	names := map[string]bool{}
	for _, a := range km.Actions() {
		names[a.Name] = true
		if IsNavigation(a.Name) && len(a.Commands) > 0 {
			t.Fatalf("%s is navigation but names commands %v", a.Name, a.Commands)
		}
		if !IsNavigation(a.Name) && len(a.Commands) == 0 {
			t.Fatalf("%s calls the runtime but names no subcommand", a.Name)
		}
	}
	for n := range navigation() {
		if !names[n] {
			t.Fatalf("navigation names %s, which is no action", n)
		}
	}
}

func TestKeysPressedThroughTheKeymapMatchTheirBindings(t *testing.T) {
	km := Default()
	for _, a := range km.Actions() {
		for _, k := range a.Binding.Keys() {
			msg := MustMsg(k)
			if !key.Matches(msg, *a.Binding) {
				t.Fatalf("%s: pressing %q (%q) does not match", a.Name, k, msg.String())
			}
		}
	}
}

func TestApplyRebindsUnbindsAndUpdatesHelp(t *testing.T) {
	km := Default()
	err := Apply(&km, map[string]any{
		"thread.archive": "A",
		"global.quit":    []any{"Q", "ctrl+q"},
		"lineage.toggle": "space",
		"thread.cancel":  Disabled,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !key.Matches(MustMsg("A"), km.Thread.Archive) || key.Matches(MustMsg("a"), km.Thread.Archive) {
		t.Fatal("archive is not on A alone")
	}
	if km.Thread.Archive.Help().Key != "A" || km.Thread.Archive.Help().Desc != "archive" {
		t.Fatalf("archive help %+v", km.Thread.Archive.Help())
	}
	if !key.Matches(MustMsg("ctrl+q"), km.Global.Quit) || key.Matches(MustMsg("q"), km.Global.Quit) {
		t.Fatal("quit is not on Q and ctrl+q")
	}
	if !key.Matches(MustMsg(" "), km.Lineage.Toggle) || km.Lineage.Toggle.Help().Key != "space" {
		t.Fatalf("space alias: %+v", km.Lineage.Toggle.Help())
	}
	if km.Thread.Cancel.Enabled() || key.Matches(MustMsg("x"), km.Thread.Cancel) {
		t.Fatal("cancel is still bound")
	}
}

func TestApplyRefusesBadEntriesWithTheirNames(t *testing.T) {
	cases := []struct {
		keys map[string]any
		want []string
	}{
		{map[string]any{"thread.frobnicate": "z"}, []string{`[keys] "thread.frobnicate": unknown action`, "thread.archive"}},
		{map[string]any{"thread.archive": ""}, []string{`[keys] "thread.archive": empty binding`}},
		{map[string]any{"thread.archive": []any{}}, []string{`[keys] "thread.archive": empty list`}},
		{map[string]any{"thread.archive": "ctl+a"}, []string{`[keys] "thread.archive": unknown key name "ctl+a"`}},
		{map[string]any{"thread.archive": 7}, []string{`[keys] "thread.archive": expected a key or a list of keys`}},
		{map[string]any{"thread.archive": []any{"a", Disabled}}, []string{"must stand alone"}},
		{map[string]any{"thread.archive": "q"}, []string{`"q" is bound to both "global.quit" and "thread.archive"`, "the fleet pane"}},
		{map[string]any{"list.top": "j"}, []string{`"j" is bound to both "list.down" and "list.top"`}},
		{map[string]any{"dialog.cancel": "y"}, []string{`"y" is bound to both "dialog.confirm" and "dialog.cancel"`, "a dialog"}},
	}
	for _, c := range cases {
		km := Default()
		err := Apply(&km, c.keys)
		if err == nil {
			t.Fatalf("%v accepted", c.keys)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("%v: error %q lacks %q", c.keys, err, w)
			}
		}
		if !reflect.DeepEqual(km.Thread.Archive.Keys(), Default().Thread.Archive.Keys()) {
			t.Fatalf("%v: a refused config changed the keymap", c.keys)
		}
	}
}

func TestKeysOfOneScopeMayRepeatInScopesNeverLiveTogether(t *testing.T) {
	km := Default()
	// j moves lists and scrolls transcripts: never live at once.
	if err := Apply(&km, map[string]any{"transcript.down": "b", "list.down": "b"}); err != nil {
		t.Fatal(err)
	}
}

func TestMsgNamesKeysAsTheTerminalReportsThem(t *testing.T) {
	for _, k := range []string{"a", "A", "?", "/", "enter", "esc", "tab", "shift+tab", "ctrl+c", "pgdown", "home", "up", " ", "alt+x", "f5"} {
		m, ok := Msg(k)
		if !ok || m.String() != k {
			t.Fatalf("%q: %q %v", k, m.String(), ok)
		}
	}
	for _, k := range []string{"", "ctl+a", "enterr", "ab"} {
		if _, ok := Msg(k); ok {
			t.Fatalf("%q accepted", k)
		}
	}
}

// Continue is a fleet key that also works in the transcript pane, so a transcript key on the
// same key would shadow it there; the lineage pane never sees it.
func TestContinueIsLiveInTheFleetAndTranscriptPanes(t *testing.T) {
	for _, entry := range []string{"list.top", "transcript.top"} {
		km := Default()
		err := Apply(&km, map[string]any{entry: "c"})
		if err == nil || !strings.Contains(err.Error(), `"fleet.continue"`) {
			t.Fatalf("%s on c: %v", entry, err)
		}
	}
	km := Default()
	if err := Apply(&km, map[string]any{"lineage.toggle": "c"}); err != nil {
		t.Fatalf("lineage.toggle on c: %v", err)
	}
	for _, a := range km.Actions() {
		if a.Name == "fleet.continue" {
			if len(a.Commands) != 1 || a.Commands[0] != "continue" {
				t.Fatalf("fleet.continue names %v", a.Commands)
			}
			return
		}
	}
	t.Fatal("no fleet.continue action")
}
