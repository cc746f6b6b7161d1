package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// hostile is text a delegated task or another program may put in a message, a title, a path
// or an error: a window title, a clipboard write, a cleared screen, a bidi override.
const hostile = "HOSTILE \x1b]0;pwned\x07 \x1b]52;c;Y3VybCBldmlsfHNo\x07 \x1b[2J \u009b1m \r\u202Eevil\u2066x\u2069\u200f\u061c end"

// assertTerminalSafe fails when out would drive the terminal: an ESC byte, a C1 control or a
// bidi control.
func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if strings.IndexByte(out, 0x1b) >= 0 || !termsafe.Safe(out) {
		t.Fatalf("%s lets a control reach the terminal:\n%q", what, out)
	}
}

// fillHostile sets every exported string of v (through structs, pointers and slices, one
// element each) to hostile, so that each field a printer shows carries it.
func fillHostile(v reflect.Value, depth int) {
	if depth > 6 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(hostile)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fillHostile(v.Elem(), depth+1)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillHostile(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillHostile(v.Field(i), depth+1)
			}
		}
	}
}

func hostileValue[T any]() T {
	var v T
	fillHostile(reflect.ValueOf(&v).Elem(), 0)
	return v
}

// Every printer of a human output, fed a result whose every string is hostile, writes
// nothing that drives the terminal.
func TestHumanOutputsCleanHostileText(t *testing.T) {
	tableCmd := &cobra.Command{}
	tableCmd.Flags().Bool("no-color", false, "")
	var tf tableFlags
	lineage := hostileValue[api.ThreadLineageResult]()
	lineage.Root, lineage.Nodes[0].Thread.ID, lineage.Nodes[0].Children = lineage.Nodes[0].Thread.ID, lineage.Root, nil
	printers := map[string]func(io.Writer){
		"transcript": func(w io.Writer) { printTranscript(w, hostileValue[api.CatalogTranscriptResult]()) },
		"sessions": func(w io.Writer) {
			printSessions(tableCmd, &tf, w, hostileValue[api.CatalogSessionsResult](), hostile, sessionsAgain(api.CatalogSessionsParams{Search: hostile}, false, ""))
		},
		"task status": func(w io.Writer) { printTask(w, hostileValue[api.TaskInfo]()) },
		"task result": func(w io.Writer) { printTaskResult(w, hostileValue[api.TaskResult]()) },
		"lineage":     func(w io.Writer) { printLineage(w, lineage) },
		"markers":     func(w io.Writer) { printMarkers(w, hostileValue[api.ThreadMarkersResult]()) },
		"continue":    func(w io.Writer) { printContinue(w, hostileValue[api.CatalogContinueResult]()) },
		"doctor":      func(w io.Writer) { printDoctor(w, hostileValue[doctorReport]()) },
		"hosts table": func(w io.Writer) {
			tf.show(tableCmd, w, opview.Hosts(hostileValue[api.CatalogHostsResult]().Hosts), "")
		},
		"handoffs table": func(w io.Writer) {
			tf.show(tableCmd, w, opview.Handoffs(hostileValue[api.HandoffListResult]().Handoffs), "")
		},
		"tasks table": func(w io.Writer) {
			tf.show(tableCmd, w, opview.Tasks(hostileValue[api.TaskStatusResult]().Tasks), "")
		},
	}
	for name, p := range printers {
		var raw bytes.Buffer
		p(&raw)
		if termsafe.Safe(raw.String()) {
			t.Logf("%s: clean even without the writer", name)
		}
		var out bytes.Buffer
		writeHuman(&out, p)
		if !strings.Contains(out.String(), "HOSTILE") {
			t.Fatalf("%s printed none of the text: %q", name, out.String())
		}
		assertTerminalSafe(t, name, out.String())
	}

	var errOut bytes.Buffer
	printError(&errOut, &cobra.Command{}, nil, model.Errorf(model.CodeThreadNotFound, hostile, "%s", hostile).WithDetail("k", hostile))
	assertTerminalSafe(t, "an error for people", errOut.String())
	errOut.Reset()
	printError(&errOut, &cobra.Command{}, nil, errors.New(hostile))
	assertTerminalSafe(t, "a flag error for people", errOut.String())
}

// A native session whose message carries escape sequences and a bidi override: `sessions` and
// `transcript` for people show them as marks, while --json keeps the text exactly (JSON
// escapes the controls; U+202E is data there).
func TestSessionsAndTranscriptShowHostileTextInert(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	id := stored(t, codexHome, hostile)
	operatorHome(t, bin, codexHome)

	for _, args := range [][]string{{"sessions"}, {"transcript", id}, {"transcript", "no-such-thread"}} {
		out, errOut, _ := run(t, args...)
		assertTerminalSafe(t, strings.Join(args, " ")+" stdout", out)
		assertTerminalSafe(t, strings.Join(args, " ")+" stderr", errOut)
	}
	out, _, _ := run(t, "transcript", id)
	if !strings.Contains(out, "<U+202E>evil") || !strings.Contains(out, "<U+001B>]52;") {
		t.Fatalf("the marks are not shown:\n%s", out)
	}

	tr, errOut, code := run(t, "transcript", id, "--json")
	var page api.CatalogTranscriptResult
	if code != 0 || json.Unmarshal([]byte(tr), &page) != nil || len(page.Turns) != 1 {
		t.Fatalf("transcript --json (%d): %s %s", code, tr, errOut)
	}
	if got := page.Turns[0].Messages[0].Text; got != hostile {
		t.Fatalf("JSON changed the text: %q", got)
	}
	if strings.IndexByte(tr, 0x1b) >= 0 || !strings.Contains(tr, "\u202E") {
		t.Fatalf("JSON should escape ESC and keep U+202E as data: %q", tr)
	}
}
