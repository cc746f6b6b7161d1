package codextest

import (
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestRenderConfig(t *testing.T) {
	c := homeConfig{model: "mock-model", idleTimeout: 10 * time.Second}
	WithThreadUnloadDelay(2 * time.Second)(&c)
	WithStreamIdleTimeout(1500 * time.Millisecond)(&c)
	WithModel(`odd "slug"`)(&c)
	text, err := c.render("http://127.0.0.1:1234/v1")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Model          string `toml:"model"`
		ModelProvider  string `toml:"model_provider"`
		ApprovalPolicy string `toml:"approval_policy"`
		SandboxMode    string `toml:"sandbox_mode"`
		UnloadDelay    int64  `toml:"thread_unload_delay_secs"`
		Features       map[string]bool
		ModelProviders map[string]map[string]any `toml:"model_providers"`
	}
	if _, err := toml.Decode(text, &got); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	fake := got.ModelProviders["fake"]
	if got.Model != `odd "slug"` || got.ModelProvider != "fake" || got.ApprovalPolicy != "never" ||
		got.SandboxMode != "read-only" || got.UnloadDelay != 2 ||
		got.Features["plugins"] || got.Features["shell_snapshot"] || got.Features["unbounded_connection_retries"] ||
		len(got.Features) != 3 ||
		fake["name"] != "fake" || fake["base_url"] != "http://127.0.0.1:1234/v1" || fake["wire_api"] != "responses" ||
		fake["request_max_retries"] != int64(0) || fake["stream_max_retries"] != int64(0) ||
		fake["stream_idle_timeout_ms"] != int64(1500) {
		t.Fatalf("decoded %+v from\n%s", got, text)
	}

	defaults, err := homeConfig{model: "m", idleTimeout: 10 * time.Second}.render("u")
	if err != nil || strings.Contains(defaults, "thread_unload_delay_secs") || !strings.Contains(defaults, "stream_idle_timeout_ms = 10000\n") {
		t.Fatalf("defaults (%v):\n%s", err, defaults)
	}
}

func TestRenderConfigRejects(t *testing.T) {
	for _, o := range []HomeOption{
		WithThreadUnloadDelay(1500 * time.Millisecond),
		WithThreadUnloadDelay(-time.Second),
		WithStreamIdleTimeout(0),
	} {
		c := homeConfig{model: "m", idleTimeout: time.Second}
		o(&c)
		if _, err := c.render("u"); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
