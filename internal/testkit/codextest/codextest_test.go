package codextest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
)

func TestEnvIsMinimal(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-leak")
	t.Setenv("CODEX_HOME", "/elsewhere")
	env := codextest.Env("/h")
	var keys []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"CODEX_HOME", "HOME", "LANG", "PATH", "RUST_LOG"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if !slices.Contains(env, "CODEX_HOME=/h") || !slices.Contains(env, "HOME=/h") || !slices.Contains(env, "PATH="+os.Getenv("PATH")) {
		t.Fatalf("env %v", env)
	}
}

func TestNewHomeWritesPrivateConfig(t *testing.T) {
	home := codextest.NewHome(t, "http://127.0.0.1:9/v1")
	fi, err := os.Stat(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config.toml mode %v", fi.Mode())
	}
}

// TestNewHomePassesStrictConfig lets codex itself validate every key we write.
func TestNewHomePassesStrictConfig(t *testing.T) {
	bin := codextest.CodexBin(t)
	home := codextest.NewHome(t, "http://127.0.0.1:9/v1",
		codextest.WithThreadUnloadDelay(2*time.Second), codextest.WithStreamIdleTimeout(3*time.Second), codextest.WithModel("gpt-5.5"))
	cmd := exec.Command(bin, "app-server", "--strict-config", "--print-startup-config")
	cmd.Env = codextest.Env(home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var got struct {
		AppServerVersion string `json:"appServerVersion"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.AppServerVersion == "" {
		t.Fatalf("startup config %q (%v)", out, err)
	}
}

func TestCodexBinFromEnv(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(codextest.EnvBin, self)
	if got := codextest.CodexBin(t); got != self {
		t.Fatalf("CodexBin = %q, want %q", got, self)
	}
}

// TestCodexBinNotFound runs CodexBin in a child test process whose working
// directory has no go.mod above it, so that nothing can be found.
func TestCodexBinNotFound(t *testing.T) {
	if os.Getenv("CODEXTEST_CHILD") == "1" {
		codextest.CodexBin(t)
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(notExec, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, bin, require, want string
		fail                     bool
	}{
		{"skip", "", "", "--- SKIP", false},
		{"required", "", "1", "failing instead of skipping because CODEXHOST_REQUIRE_CODEX=1", true},
		{"bad env", notExec, "", "is not an executable file", true},
	} {
		cmd := exec.Command(self, "-test.run=^TestCodexBinNotFound$", "-test.v")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "CODEXTEST_CHILD=1",
			codextest.EnvBin+"="+tc.bin, codextest.EnvRequire+"="+tc.require)
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fail || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: err=%v, want failure %v and output containing %q; output:\n%s", tc.name, err, tc.fail, tc.want, out)
		}
		if !tc.fail && !strings.Contains(string(out), "install it with `make test` or ./scripts/install-codex.sh, or set CODEXHOST_CODEX_BIN") {
			t.Errorf("%s: skip reason does not say how to install:\n%s", tc.name, out)
		}
	}
}
