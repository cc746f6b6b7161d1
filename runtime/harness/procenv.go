package harness

import (
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
)

// procenvReservedPrefix starts every variable that carries runtime credentials or identity. Such
// variables reach a harness process only through Env.Vars and ThreadEnv, never by inheritance:
// the runtime may run with a client token or a home of its own that no agent should see.
const procenvReservedPrefix = "CODEXHOST_"

// procenvNames are the runtime variables a harness process inherits. The list is what a coding
// agent needs to find programs, its home and locale, reach the OpenAI API (directly or through
// a proxy with a custom CA) and log; anything else (cloud credentials, SSH agent, tokens of
// other tools) must be named in the passthrough list on purpose.
// Built on first use: a package-level map or regexp is built by every process at start.
var procenvNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		// Finding programs, the user and the home.
		"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TMPDIR": true,
		// Locale and terminal; agents render output and run tools that depend on them.
		"LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "COLORTERM": true, "NO_COLOR": true,
		// Codex itself.
		"CODEX_HOME": true, "OPENAI_API_KEY": true, "OPENAI_BASE_URL": true, "OPENAI_ORG_ID": true,
		"OPENAI_PROJECT_ID": true, "RUST_LOG": true,
		// Proxies, in both spellings because programs disagree on which one they read.
		"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
		"http_proxy": true, "https_proxy": true, "no_proxy": true, "all_proxy": true,
		// Custom certificate authorities (corporate proxies); NODE_EXTRA_CA_CERTS for the npm wrapper.
		"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true,
	}
})

// procenvPrefixes are families of variables inherited as a whole.
var procenvPrefixes = []string{"LC_", "XDG_"}

// procenvReserved reports whether name is a CODEXHOST_ variable. The check ignores case so that a
// differently spelled variable cannot smuggle a credential past it.
func procenvReserved(name string) bool {
	return len(name) >= len(procenvReservedPrefix) && strings.EqualFold(name[:len(procenvReservedPrefix)], procenvReservedPrefix)
}

// procenvValidName reports whether name can be an environment variable name at all.
func procenvValidName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

// BaseEnv returns the part of environ (KEY=VALUE entries, as os.Environ gives them) that a
// process started by the runtime inherits: the whitelisted names (procenvNames), the LC_* and XDG_*
// families, and the names in passthrough. A passthrough entry ending in "*" names a prefix
// ("AWS_*"). CODEXHOST_* variables are never inherited, even when passthrough names them.
// The result is sorted by name; for a name given twice in environ the last value wins.
func BaseEnv(environ []string, passthrough []string) []string {
	exact := make(map[string]bool, len(passthrough))
	var prefixes []string
	for _, p := range passthrough {
		if rest, ok := strings.CutSuffix(p, "*"); ok {
			if rest != "" { // a bare "*" would undo the whitelist
				prefixes = append(prefixes, rest)
			}
			continue
		}
		exact[p] = true
	}
	keep := func(name string) bool {
		if procenvReserved(name) {
			return false
		}
		if procenvNames()[name] || exact[name] {
			return true
		}
		for _, p := range procenvPrefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	vars := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !procenvValidName(name) || !keep(name) {
			continue
		}
		vars[name] = value
	}
	return procenvRender(vars)
}

// procenvModelSecrets are whitelisted for the App Server, which calls the model, and for no
// one else unless named: an external harness gets the model key only when its config passes
// it through.
// Built on first use: a package-level map or regexp is built by every process at start.
var procenvModelSecrets = sync.OnceValue(func() map[string]bool { return map[string]bool{"OPENAI_API_KEY": true} })

// ExternalEnv is BaseEnv for an external harness: the same whitelist without the model's
// key, unless passthrough names it.
func ExternalEnv(environ []string, passthrough []string) []string {
	named := map[string]bool{}
	for _, p := range passthrough {
		named[p] = true
	}
	base := BaseEnv(environ, passthrough)
	out := base[:0]
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if procenvModelSecrets()[name] && !named[name] {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ThreadEnv is the whole environment of a process that runs a turn of threadID: base, then the
// configured extra variables, then the connection variables of conn, then CODEXHOST_THREAD_ID
// (when threadID is set). A later source overrides an earlier one for the same name. CODEXHOST_*
// names in base and extra are dropped, so the process sees exactly the runtime's own ones.
// The result is sorted by name.
func ThreadEnv(base []string, conn Env, threadID model.ThreadID, extra map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range base {
		name, value, ok := strings.Cut(kv, "=")
		if ok && procenvValidName(name) && !procenvReserved(name) {
			vars[name] = value
		}
	}
	for name, value := range extra {
		if procenvValidName(name) && !procenvReserved(name) && !strings.ContainsRune(value, 0) {
			vars[name] = value
		}
	}
	for _, kv := range conn.Vars(conn.TokenFor(threadID)) {
		name, value, _ := strings.Cut(kv, "=")
		vars[name] = value
	}
	if threadID != "" {
		vars[EnvThreadID] = string(threadID)
	}
	return procenvRender(vars)
}

// procenvRender turns vars into KEY=VALUE entries sorted by name, so that the environment of a
// process does not depend on map order.
func procenvRender(vars map[string]string) []string {
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, name := range names {
		out = append(out, name+"="+vars[name])
	}
	return out
}

// Lookup reads a variable of environ as os.Getenv would (the last entry wins).
func Lookup(environ []string) func(string) string {
	return func(key string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	}
}

// WithVar returns env with name set to value, replacing an earlier value.
func WithVar(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == name {
			continue
		}
		out = append(out, kv)
	}
	return append(out, name+"="+value)
}

// DefaultCodexHome is the Codex home the native App Server uses: CODEX_HOME, else ~/.codex.
func DefaultCodexHome(lookup func(string) string) string {
	if v := lookup("CODEX_HOME"); v != "" {
		return filepath.Clean(v)
	}
	if home := lookup("HOME"); home != "" {
		return filepath.Join(home, ".codex")
	}
	return ""
}
