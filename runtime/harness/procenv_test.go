package harness

import (
	"slices"
	"strings"
	"testing"
)

func TestBaseEnvKeepsOnlyTheWhitelist(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/old",
		"HOME=/home/u",
		"LC_ALL=C.UTF-8",
		"XDG_CONFIG_HOME=/home/u/.config",
		"http_proxy=http://proxy:3128",
		"HTTPS_PROXY=http://proxy:3128",
		"OPENAI_API_KEY=sk-test",
		"CODEX_HOME=/home/u/.codex",
		"AWS_SECRET_ACCESS_KEY=nope",
		"SSH_AUTH_SOCK=/tmp/agent",
		"CODEXHOST_RUNTIME_TOKEN=outer-token",
		"CODEXHOST_CLIENT_TOKEN=client",
		"codexhost_runtime_token=lower",
		"CODEXHOST_PASSED=still-not",
		"FOO=foo",
		"BAR_ONE=1",
		"BARN=no",
		"NOEQUALS",
		"=weird",
		"PATH=/usr/bin", // a repeated name: the last one wins, as in exec
	}
	got := BaseEnv(environ, []string{"FOO", "BAR_*", "*", "CODEXHOST_PASSED", "CODEXHOST_*"})
	want := []string{
		"BAR_ONE=1",
		"CODEX_HOME=/home/u/.codex",
		"FOO=foo",
		"HOME=/home/u",
		"HTTPS_PROXY=http://proxy:3128",
		"LC_ALL=C.UTF-8",
		"OPENAI_API_KEY=sk-test",
		"PATH=/usr/bin",
		"XDG_CONFIG_HOME=/home/u/.config",
		"http_proxy=http://proxy:3128",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("BaseEnv:\n got %q\nwant %q", got, want)
	}
}

func TestThreadEnvLayersAndStripsReservedNames(t *testing.T) {
	t.Parallel()
	base := []string{"PATH=/usr/bin", "FOO=base", "CODEXHOST_SECRET=leak", "CODEXHOST_THREAD_ID=stale"}
	extra := map[string]string{
		"FOO":                  "config",
		"ZED":                  "z",
		"CODEXHOST_THREAD_ID":  "forged",
		"CODEXHOST_EXTRA":      "leak",
		"Codexhost_Mixed_Case": "leak",
		"BAD=NAME":             "x",
	}
	conn := Env{CLIPath: "/bin/codexhost", Endpoint: "unix:///h/rt.sock", Token: "tok"}
	got := ThreadEnv(base, conn, "0190a0b0-0000-7000-8000-000000000001", extra)
	want := []string{
		"CODEXHOST_CLI_PATH=/bin/codexhost",
		"CODEXHOST_RUNTIME_ENDPOINT=unix:///h/rt.sock",
		"CODEXHOST_RUNTIME_TOKEN=tok",
		"CODEXHOST_THREAD_ID=0190a0b0-0000-7000-8000-000000000001",
		"FOO=config",
		"PATH=/usr/bin",
		"ZED=z",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ThreadEnv:\n got %q\nwant %q", got, want)
	}
}

func TestThreadEnvWithoutThreadForTheAppServer(t *testing.T) {
	t.Parallel()
	got := ThreadEnv([]string{"HOME=/h"}, Env{CLIPath: "c", Endpoint: "e", Token: "t"}, "", nil)
	want := []string{"CODEXHOST_CLI_PATH=c", "CODEXHOST_RUNTIME_ENDPOINT=e", "CODEXHOST_RUNTIME_TOKEN=t", "HOME=/h"}
	if !slices.Equal(got, want) {
		t.Fatalf("ThreadEnv:\n got %q\nwant %q", got, want)
	}
}

// The model key is whitelisted for the App Server only: an external harness gets it when its
// config names it, and never by default.
func TestExternalEnvHasTheModelKeyOnlyWhenNamed(t *testing.T) {
	t.Parallel()
	environ := []string{"PATH=/bin", "OPENAI_API_KEY=sk-secret", "OPENAI_BASE_URL=http://x"}
	if got := strings.Join(ExternalEnv(environ, nil), " "); strings.Contains(got, "sk-secret") || !strings.Contains(got, "PATH=/bin") {
		t.Fatalf("default external environment: %s", got)
	}
	if got := strings.Join(ExternalEnv(environ, []string{"OPENAI_API_KEY"}), " "); !strings.Contains(got, "OPENAI_API_KEY=sk-secret") {
		t.Fatalf("with the key named: %s", got)
	}
	if got := strings.Join(BaseEnv(environ, nil), " "); !strings.Contains(got, "OPENAI_API_KEY=sk-secret") {
		t.Fatalf("the App Server's environment lost the key: %s", got)
	}
}
