package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = executeEnv(args, &out, &errOut, testEnv(t))
	return out.String(), errOut.String(), code
}

func TestVersionPrintsTheBuildVersion(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "codexhost "+Version+" ") {
		t.Fatalf("version: code %d, %q", code, out)
	}
}

func TestManPageAndCompletionsAreGenerated(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "man")
	if code != 0 || !strings.Contains(out, ".TH CODEXHOST 1") || !strings.Contains(out, "version") {
		t.Fatalf("man: code %d, %.200q", code, out)
	}
	out, _, code = run(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "__start_codexhost") {
		t.Fatalf("completion bash: code %d", code)
	}
}

func TestUnknownFlagIsAnInvalidArgumentEnvelope(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "thread", "list", "--no-such-flag")
	if code != 1 || out != "" {
		t.Fatalf("code %d stdout %q", code, out)
	}
	var env struct {
		Error struct{ Code, Message, Hint string }
	}
	if err := json.Unmarshal([]byte(errOut), &env); err != nil || env.Error.Code != "INVALID_ARGUMENT" || env.Error.Hint == "" {
		t.Fatalf("stderr is not an error envelope: %q (%v)", errOut, err)
	}
}

// `--watch` takes its value as a separate word, as DESIGN's CLI contract writes it.
func TestDelegateWatchTakesTrueOrFalse(t *testing.T) {
	t.Parallel()
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", "")
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "")
	setenv(t, "CODEXHOST_CLIENT_TOKEN", "")
	_, errOut, code := run(t, "delegate", "start", "--harness", "x", "--task", "y", "--watch", "maybe")
	if code != 1 || !strings.Contains(errOut, "INVALID_ARGUMENT") || !strings.Contains(errOut, "use true or false") {
		t.Fatalf("--watch maybe: code %d %s", code, errOut)
	}
	// A valid value passes parsing and stops only at the missing connection.
	_, errOut, code = run(t, "delegate", "start", "--harness", "x", "--task", "y", "--watch", "true")
	if code != 1 || !strings.Contains(errOut, "RUNTIME_UNREACHABLE") {
		t.Fatalf("--watch true: code %d %s", code, errOut)
	}
}

// A watch window of 0 typed on purpose is refused, not read as "the default" (30 minutes).
func TestWatchWindowOfZeroIsRefused(t *testing.T) {
	t.Parallel()
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", "")
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "")
	setenv(t, "CODEXHOST_CLIENT_TOKEN", "")
	for _, args := range [][]string{
		{"thread", "watch", "019a0000-0000-7000-8000-000000000000", "--timeout-ms", "0"},
		{"delegate", "start", "--harness", "x", "--task", "y", "--watch", "true", "--watch-timeout-ms", "0"},
	} {
		_, errOut, code := run(t, args...)
		if code != 1 || !strings.Contains(errOut, "INVALID_ARGUMENT") || !strings.Contains(errOut, "is not a window") {
			t.Fatalf("%v: code %d %s", args, code, errOut)
		}
	}
}
