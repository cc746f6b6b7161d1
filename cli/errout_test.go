package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// isEnvelope reports whether s is one {"error":{…}} line.
func isEnvelope(s string) bool {
	var env struct {
		Error *struct{ Code, Message, Hint string }
	}
	return strings.Count(s, "\n") == 1 && json.Unmarshal([]byte(s), &env) == nil && env.Error != nil && env.Error.Code != ""
}

func TestHumanCommandErrorsPrintAsTextAgentAndJSONOnesAsTheEnvelope(t *testing.T) {
	t.Parallel()
	setenv(t, "CODEXHOST_HOME", t.TempDir())
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", "")
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "")
	setenv(t, "CODEXHOST_CLIENT_TOKEN", "")
	cases := []struct {
		args []string
		json bool
	}{
		{[]string{"sessions", "--limit", "0"}, false},
		{[]string{"sessions", "--limit", "0", "--json"}, true},
		{[]string{"sessions", "--no-such-flag", "--json"}, true}, // --json is honoured even when parsing failed
		{[]string{"version", "--no-such-flag"}, false},
		{[]string{"thread", "read", "x"}, true},              // agent-facing: JSON by default
		{[]string{"delegate", "start", "--task", "x"}, true}, // missing --harness
		{[]string{"client", "events"}, true},
	}
	for _, c := range cases {
		out, errOut, code := run(t, c.args...)
		if code != 1 || out != "" {
			t.Errorf("%v: code %d stdout %q", c.args, code, out)
			continue
		}
		if c.json != isEnvelope(errOut) {
			t.Errorf("%v: JSON envelope %v wanted, got %q", c.args, c.json, errOut)
		}
		if !c.json {
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], "error: INVALID_ARGUMENT: ") || !strings.HasPrefix(lines[1], "hint: ") {
				t.Errorf("%v: want `error: CODE: message` then `hint: …`, got %q", c.args, errOut)
			}
		}
	}
}

func TestMisspeltCommandSuggestsTheRealOneReadably(t *testing.T) {
	t.Parallel()
	_, errOut, code := run(t, "threda")
	if code != 1 || strings.Contains(errOut, `\n`) || strings.Contains(errOut, "{") {
		t.Fatalf("threda: code %d, %q", code, errOut)
	}
	want := "error: INVALID_ARGUMENT: unknown command \"threda\" for \"codexhost\"\nhint: did you mean `codexhost thread`? `codexhost --help` lists the commands\n"
	if errOut != want {
		t.Fatalf("threda:\n%s\nwant:\n%s", errOut, want)
	}
	// Inside an agent-facing group the envelope carries the same suggestion.
	_, errOut, code = run(t, "thread", "raed", "x")
	if code != 1 || !isEnvelope(errOut) || !strings.Contains(errOut, "did you mean `codexhost thread read`?") {
		t.Fatalf("thread raed: code %d, %q", code, errOut)
	}
	// A group without a subcommand still shows its help.
	out, _, code := run(t, "task")
	if code != 0 || !strings.Contains(out, "Available Commands") {
		t.Fatalf("task: code %d, %q", code, out)
	}
}
