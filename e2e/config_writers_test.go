package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/runtime/config"
)

// Concurrent writers of config.toml, each a process of the built binary, lose nothing: 20
// `client add` and 10 `node allow` at once leave 30 clients, each token matching its entry.
func TestConcurrentConfigWritersLoseNoUpdate(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir(), "CODEXHOST_HOME=" + home}
	work := t.TempDir()
	const clients, nodes = 20, 10
	tokens := make([]string, clients+nodes)
	var wg sync.WaitGroup
	for i := range clients + nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"client", "add", fmt.Sprintf("bot%02d", i), "--json"}
			if i >= clients {
				args = []string{"node", "allow", fmt.Sprintf("gw%02d", i), "--json"}
			}
			stdout, stderr, code, err := execCLI(bin, work, append([]string{"PATH=" + os.Getenv("PATH")}, env...), args)
			if err != nil || code != 0 {
				t.Errorf("%v: exit %d %v %s", args, code, err, stderr)
				return
			}
			var out struct{ Token string }
			if err := strictJSON(stdout, &out); err != nil {
				t.Errorf("%v printed %q", args, stdout)
			}
			tokens[i] = out.Token
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Clients) != clients+nodes {
		t.Fatalf("config.toml has %d clients after %d concurrent writers", len(cfg.Clients), clients+nodes)
	}
	for i, tok := range tokens {
		name, ok := cfg.MatchClient(tok)
		want := fmt.Sprintf("bot%02d", i)
		if i >= clients {
			want = fmt.Sprintf("gw%02d", i)
		}
		if !ok || name != want {
			t.Errorf("token printed for %s matches %q", want, name)
		}
	}
	if fi, err := os.Stat(filepath.Join(home, config.FileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config.toml mode: %v %v", fi, err)
	}
}

// config.toml readable by others is refused as the home is; `client add local` is refused:
// the name belongs to the home's operator client.
func TestConfigModeAndReservedClientName(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir(), "CODEXHOST_HOME=" + home}
	work := t.TempDir()
	r := run(t, work, env, "client", "add", config.OperatorClient, "--json")
	if e := r.failure(t); e.Code != "INVALID_ARGUMENT" {
		t.Fatalf("client add local: %s", r)
	}
	r = run(t, work, env, "client", "add", "bot")
	if r.code != 0 {
		t.Fatalf("client add bot: %s", r)
	}
	path := filepath.Join(home, config.FileName)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, work, env, "client", "add", "other", "--json")
	if e := r.failure(t); e.Code != "PERMISSION_DENIED" {
		t.Fatalf("client add with config.toml 0644: %s", r)
	}
	r = run(t, work, env, "serve", "--json")
	if e := r.failure(t); e.Code != "PERMISSION_DENIED" {
		t.Fatalf("serve with config.toml 0644: %s", r)
	}
}
