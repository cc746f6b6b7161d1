// Package codextest provides what tests need to run the real `codex app-server`
// offline: the binary, a throwaway CODEX_HOME configured for a fake model
// provider (see package fakemodel), and a minimal process environment.
package codextest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// EnvBin names a codex binary to use instead of installing one.
	EnvBin = "CODEXHOST_CODEX_BIN"
	// EnvRequire=1 turns "codex not found" from a skip into a failure (CI sets it).
	EnvRequire = "CODEXHOST_REQUIRE_CODEX"

	installScript  = "scripts/install-codex.sh"
	installTimeout = 5 * time.Minute
)

var install struct {
	once sync.Once
	bin  string
	err  error
}

// CodexBin returns the path of the codex binary: $CODEXHOST_CODEX_BIN, else
// what scripts/install-codex.sh prints (run at most once per process). When
// neither yields one the test is skipped, or fails if CODEXHOST_REQUIRE_CODEX=1.
// A CODEXHOST_CODEX_BIN that is set but unusable always fails the test, since
// someone asked for that binary explicitly.
func CodexBin(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv(EnvBin); p != "" {
		if err := checkExecutable(p); err != nil {
			tb.Fatalf("codextest: %s: %v", EnvBin, err)
		}
		return p
	}
	install.once.Do(func() { install.bin, install.err = runInstall() })
	if install.err != nil {
		reason := fmt.Sprintf("codex app-server not available: %v\n"+
			"install it with `make test` or ./%s, or set %s to a codex binary", install.err, installScript, EnvBin)
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("codextest: %s\n(failing instead of skipping because %s=1)", reason, EnvRequire)
		}
		tb.Skip(reason)
	}
	return install.bin
}

func runInstall() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, installScript)
	if _, err := os.Stat(script); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, script)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s failed: %v: %s", installScript, err, strings.TrimSpace(stderr.String()))
	}
	out := strings.TrimSpace(stdout.String())
	bin := strings.TrimSpace(out[strings.LastIndexByte(out, '\n')+1:])
	if bin == "" {
		return "", fmt.Errorf("%s printed no path", installScript)
	}
	if err := checkExecutable(bin); err != nil {
		return "", fmt.Errorf("%s printed an unusable path: %v", installScript, err)
	}
	return bin, nil
}

// repoRoot walks up from the working directory (a package directory under
// `go test`) to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// HomeOption adjusts the config.toml written by NewHome.
type HomeOption func(*homeConfig)

type homeConfig struct {
	model        string
	idleTimeout  time.Duration
	unloadDelay  time.Duration
	unloadDelayS bool
}

// WithStreamIdleTimeout sets the provider's stream_idle_timeout_ms (default
// 10s): how long codex waits on a silent stream before failing the turn.
func WithStreamIdleTimeout(d time.Duration) HomeOption {
	return func(c *homeConfig) { c.idleTimeout = d }
}

// WithThreadUnloadDelay sets thread_unload_delay_secs: how long codex keeps a
// thread loaded after its last subscriber left. Codex only takes whole seconds.
func WithThreadUnloadDelay(d time.Duration) HomeOption {
	return func(c *homeConfig) { c.unloadDelay, c.unloadDelayS = d, true }
}

// WithModel sets the model slug (default "mock-model"). The slug changes the
// tools codex offers: "gpt-5.5" adds apply_patch, "gpt-6.1-sol" offers none.
func WithModel(slug string) HomeOption {
	return func(c *homeConfig) { c.model = slug }
}

// NewHome creates a temporary CODEX_HOME whose config.toml points codex at
// providerURL (e.g. fakemodel.Server.URL()) and keeps it offline and quick:
// no retries, no approvals, read-only sandbox, and none of the features that
// reach the network or run the user's login shell. Create it before starting
// codex so that codex is stopped before the directory is removed.
func NewHome(tb testing.TB, providerURL string, opts ...HomeOption) string {
	tb.Helper()
	c := homeConfig{model: "mock-model", idleTimeout: 10 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	config, err := c.render(providerURL)
	if err != nil {
		tb.Fatalf("codextest: %v", err)
	}
	home := tb.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		tb.Fatalf("codextest: %v", err)
	}
	return home
}

func (c homeConfig) render(providerURL string) (string, error) {
	if c.idleTimeout < time.Millisecond {
		return "", fmt.Errorf("stream idle timeout %v is below 1ms", c.idleTimeout)
	}
	if c.unloadDelayS && (c.unloadDelay < 0 || c.unloadDelay%time.Second != 0) {
		return "", fmt.Errorf("thread unload delay %v is not a whole number of seconds", c.unloadDelay)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model = %s\n", tomlString(c.model))
	b.WriteString(`model_provider = "fake"
approval_policy = "never"
sandbox_mode = "read-only"
`)
	if c.unloadDelayS {
		fmt.Fprintf(&b, "thread_unload_delay_secs = %d\n", c.unloadDelay/time.Second)
	}
	// plugins: background git/HTTPS to github.com and chatgpt.com.
	// shell_snapshot: a login shell per thread, slow and dependent on the user's dotfiles.
	// unbounded_connection_retries: a dead provider would hang the turn forever.
	// Retries 0: one HTTP 500 would otherwise cost ~30 requests and ~25 s.
	fmt.Fprintf(&b, `
[features]
plugins = false
shell_snapshot = false
unbounded_connection_retries = false

[model_providers.fake]
name = "fake"
base_url = %s
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = %d
`, tomlString(providerURL), c.idleTimeout.Milliseconds())
	return b.String(), nil
}

// tomlString quotes s as a TOML basic string; JSON string escapes are valid TOML.
func tomlString(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// Env is the complete environment for a codex process in tests. Nothing else
// is inherited, so the developer's OPENAI_API_KEY, CODEX_* or proxy settings
// cannot leak in. HOME is the CODEX_HOME too, so commands codex runs never
// read the developer's dotfiles.
func Env(codexHome string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return []string{
		"PATH=" + path,
		"HOME=" + codexHome,
		"CODEX_HOME=" + codexHome,
		"LANG=C.UTF-8",
		"RUST_LOG=warn",
	}
}
