package hosttest

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/codexhost/codexhost/runtime/api"
)

// CatalogIDs are the ids of catalog sessions, in their order.
func CatalogIDs(ss []api.CatalogSession) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

// CodexProcesses lists the pids whose environment has CODEX_HOME=home: the App Servers
// started for that Codex home.
func CodexProcesses(home string) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == "CODEX_HOME="+home {
				pids = append(pids, filepath.Base(d))
			}
		}
	}
	return pids
}
