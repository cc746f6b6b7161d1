package config

import (
	"path/filepath"
	"slices"

	"github.com/codexhost/codexhost/model"
)

// Markers tunes marker blocks (fenced blocks in an agent's completed turn output that
// create, poll, wait for, cancel and retry threads).
type Markers struct {
	// MaxActiveThreads is the quota of a principal: a creation round is skipped whole when
	// the principal already has this many threads running. 0 is DefaultMaxActiveThreads.
	MaxActiveThreads int `toml:"max_active_threads,omitempty,omitzero"`
	// Workers bounds the read rounds of polls and waits running at once (a wait holds a slot
	// only while it reads, never while it sleeps); 0 is DefaultMarkerWorkers.
	Workers int `toml:"workers,omitempty,omitzero"`
	// WorkersPerPrincipal bounds the slots one principal holds at once, so that one
	// principal's reads never keep another's waiting; 0 is half of the workers.
	WorkersPerPrincipal int `toml:"workers_per_principal,omitempty,omitzero"`
	// Executors maps the executors `docker` and `cloud` of a task-create block to a harness;
	// an executor not mapped here is refused with that reason.
	Executors map[string]string `toml:"executors,omitempty"`
	// RetryClients are the clients whose agents may retry threads with task-retry; the
	// operator always may, other clients only when listed here.
	RetryClients []string `toml:"retry_clients,omitempty"`
	// WorktreeDir is where created threads get their own worktrees (an absolute path outside
	// every repository); "" is the home's worktrees folder.
	WorktreeDir string `toml:"worktree_dir,omitempty"`
}

// Marker defaults.
const (
	DefaultMaxActiveThreads = 16
	DefaultMarkerWorkers    = 8
)

// ActiveQuota is the configured quota or the default.
func (m Markers) ActiveQuota() int {
	if m.MaxActiveThreads > 0 {
		return m.MaxActiveThreads
	}
	return DefaultMaxActiveThreads
}

// WorkerSlots is the configured pool size or the default.
func (m Markers) WorkerSlots() int {
	if m.Workers > 0 {
		return m.Workers
	}
	return DefaultMarkerWorkers
}

// PrincipalSlots is the configured share of one principal, or half of the slots (at least
// one); never more than the slots.
func (m Markers) PrincipalSlots() int {
	all := m.WorkerSlots()
	if m.WorkersPerPrincipal > 0 {
		return min(m.WorkersPerPrincipal, all)
	}
	return max(1, (all+1)/2)
}

// MayRetry reports whether a client's agents hold the retry grant.
func (m Markers) MayRetry(client string) bool { return slices.Contains(m.RetryClients, client) }

func (c *Config) validateMarkers() error {
	m := c.Markers
	if m.MaxActiveThreads < 0 || m.Workers < 0 || m.Workers > 256 || m.WorkersPerPrincipal < 0 || m.WorkersPerPrincipal > 256 {
		return model.Errorf(model.CodeInvalidArgument, "set markers.max_active_threads to a positive number and markers.workers and markers.workers_per_principal from 1 to 256, or remove them", "config: markers limits out of range")
	}
	if m.WorktreeDir != "" && !filepath.IsAbs(m.WorktreeDir) {
		return model.Errorf(model.CodeInvalidArgument, "set markers.worktree_dir to an absolute path outside your repositories, or remove it", "config: markers.worktree_dir %q is not absolute", m.WorktreeDir)
	}
	for exec, h := range m.Executors {
		if exec != "docker" && exec != "cloud" {
			return model.Errorf(model.CodeInvalidArgument, "map only docker and cloud in [markers.executors]", "config: unknown executor %q", exec)
		}
		if _, ok := c.Harnesses[h]; !ok && h != model.NativeHarness {
			return model.Errorf(model.CodeInvalidArgument, "map the executor to codex or a harness of [harnesses]", "config: executor %q maps to unknown harness %q", exec, h)
		}
	}
	return nil
}
