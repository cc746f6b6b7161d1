package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Load takes any config.toml without panicking; what it accepts passes Validate and survives
// a save and a second load.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"", "codex_bin = \"/usr/bin/codex\"\n",
		"[harnesses.shell]\ncommand = [\"sh\", \"-c\", \"cat\"]\n",
		"[clients.bot]\ntoken_sha256 = \"00\"\nscopes = [\"operator.read\"]\n",
		"[supervisor]\nendpoints = [\"/x\"]\n", "[keys]\n\"thread.archive\" = \"q\"\n",
		"[nodes.a]\naddress = \"127.0.0.1:1\"\ntoken = \"t\"\n", "dedupe_window = \"30s\"\n", "= broken",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(home)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Load accepted a config that fails Validate: %v", err)
		}
		if err := Save(home, cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(home); err != nil {
			t.Fatalf("a saved config does not load again: %v", err)
		}
	})
}

func FuzzDuration(f *testing.F) {
	for _, s := range []string{"30s", "1h30m", "0", "-5s", "9223372036854775807ns", "1e9h", "", "10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d Duration
		if err := d.UnmarshalText([]byte(s)); err != nil {
			return
		}
		b, err := d.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var again Duration
		if err := again.UnmarshalText(b); err != nil || again.Duration != d.Duration {
			t.Fatalf("%q -> %v -> %q -> %v %v", s, d.Duration, b, again.Duration, err)
		}
		_ = time.Duration(d.Duration)
	})
}
