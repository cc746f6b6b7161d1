package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/codexhost/codexhost/model"
)

// The legacy supervisor configuration predates the fleet catalog: one [supervisor] table held
// the Codex homes to supervise and the policy of the agent-facing tools. Its parts now live
// in [catalog] codex_homes and [supervision]. `codexhost doctor --fix` moves them; the
// runtime itself reads only the canonical shape and refuses a file that still has the table,
// so that a policy is never half-applied from two places.

// LegacyTable is the name of the legacy table in config.toml.
const LegacyTable = "supervisor"

// FixCommand is the command that migrates the legacy table.
const FixCommand = "codexhost doctor --fix"

// legacySupervisor is the legacy table. Pointers tell a key that is absent from one set to
// its zero value, since only keys that are present move.
type legacySupervisor struct {
	Endpoints           []string `toml:"endpoints"`
	Enabled             *bool    `toml:"enabled"`
	AllowRawTranscripts *bool    `toml:"allowRawTranscripts"`
	AllowWriteControls  *bool    `toml:"allowWriteControls"`
	MaxStoredSessions   *int     `toml:"max_stored_sessions"`
}

// legacyDoc is config.toml as a migration reads it: the canonical shape plus the legacy table.
type legacyDoc struct {
	Config
	Supervisor *legacySupervisor `toml:"supervisor"`
}

// refuseLegacy fails a load of a file that still has the legacy table.
func refuseLegacy(md toml.MetaData, path string) error {
	if !md.IsDefined(LegacyTable) {
		return nil
	}
	return model.Errorf(model.CodeFailedPrecondition,
		"run `"+FixCommand+"` to move it to [catalog] codex_homes and [supervision]",
		"config: %s has the legacy [%s] table, which is no longer read", path, LegacyTable).
		WithDetail("legacyTable", LegacyTable)
}

// Migration actions: what became of one legacy key.
const (
	// MigrationMoved: the canonical key was absent and takes the legacy value.
	MigrationMoved = "moved"
	// MigrationMerged: the legacy endpoints were added to codex_homes, without duplicates.
	MigrationMerged = "merged"
	// MigrationKept: the canonical key is set to another value, which wins; the legacy value is dropped.
	MigrationKept = "kept"
	// MigrationSame: the canonical key already has the legacy value.
	MigrationSame = "same"
)

// MigrationChange is what became of one legacy key. Paths of Codex homes are counted, never
// shown, as everywhere else.
type MigrationChange struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
}

// Migration reports the legacy configuration of a home and, once applied, what moved.
type Migration struct {
	Path    string            `json:"path"`
	Legacy  bool              `json:"legacy"`  // the file has the legacy table
	Applied bool              `json:"applied"` // the file was rewritten without it
	Changes []MigrationChange `json:"changes"`
	// Kept is the copy of the file before the migration when the rewrite dropped its comments.
	Kept string `json:"kept,omitempty"`
}

// InspectLegacy reports what a migration of home/config.toml would do, without writing.
func InspectLegacy(home string) (*Migration, error) { return migrateFile(home, false) }

// MigrateLegacy moves the legacy table of home/config.toml to the canonical keys and writes
// the file (atomically, 0600, through Save). A file without the table is left untouched, so
// running it again changes nothing.
func MigrateLegacy(home string) (*Migration, error) { return migrateFile(home, true) }

func migrateFile(home string, apply bool) (*Migration, error) {
	if apply {
		unlock, err := lockConfig(home)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	path := filepath.Join(home, FileName)
	m := &Migration{Path: path, Changes: []MigrationChange{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "check the file's permissions", "read %s: %v", path, err)
	}
	cfg, changes, legacy, err := migrate(string(b), path)
	if err != nil {
		return nil, err
	}
	m.Legacy, m.Changes = legacy, changes
	if !legacy || !apply {
		return m, nil
	}
	kept, err := save(home, cfg)
	if err != nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "check the free space and permissions of "+home, "write %s: %v", path, err)
	}
	m.Applied, m.Kept = true, kept
	return m, nil
}

// migrate decodes a config file with its legacy table and returns the canonical config that
// replaces it. Explicit canonical values win over legacy ones; the result passes Validate.
func migrate(text, path string) (*Config, []MigrationChange, bool, error) {
	var doc legacyDoc
	md, err := toml.Decode(text, &doc)
	if err != nil {
		return nil, nil, false, model.Errorf(model.CodeInvalidArgument, "fix the syntax of "+path, "config: %v", err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = k.String()
		}
		return nil, nil, false, model.Errorf(model.CodeInvalidArgument, "remove or correct them in "+path+", then run `"+FixCommand+"` again", "config: unknown keys %v", keys)
	}
	cfg := doc.Config
	changes := []MigrationChange{}
	legacy := md.IsDefined(LegacyTable)
	if legacy && doc.Supervisor != nil {
		old := doc.Supervisor
		if md.IsDefined(LegacyTable, "endpoints") {
			ch, err := mergeEndpoints(&cfg, old.Endpoints)
			if err != nil {
				return nil, nil, true, err
			}
			changes = append(changes, ch)
		}
		if old.MaxStoredSessions != nil {
			if err := CheckStoredCap(LegacyTable+".max_stored_sessions", *old.MaxStoredSessions); err != nil {
				return nil, nil, true, model.Errorf(model.CodeInvalidArgument, "correct it in "+path+", then run `"+FixCommand+"` again", "config: %s", model.AsError(err).Message)
			}
		}
		sup := &cfg.CompatTools
		for _, k := range []struct {
			key   string
			old   any
			set   func()
			equal bool
		}{
			{"enabled", ptrValue(old.Enabled), func() { sup.Enabled = *old.Enabled }, old.Enabled != nil && *old.Enabled == sup.Enabled},
			{"allowRawTranscripts", ptrValue(old.AllowRawTranscripts), func() { sup.AllowRawTranscripts = *old.AllowRawTranscripts }, old.AllowRawTranscripts != nil && *old.AllowRawTranscripts == sup.AllowRawTranscripts},
			{"allowWriteControls", ptrValue(old.AllowWriteControls), func() { sup.AllowWriteControls = *old.AllowWriteControls }, old.AllowWriteControls != nil && *old.AllowWriteControls == sup.AllowWriteControls},
			{"max_stored_sessions", ptrValue(old.MaxStoredSessions), func() { sup.MaxStoredSessions = *old.MaxStoredSessions }, old.MaxStoredSessions != nil && *old.MaxStoredSessions == sup.MaxStoredSessions},
		} {
			if k.old == nil {
				continue
			}
			ch := MigrationChange{From: LegacyTable + "." + k.key, To: "supervision." + k.key}
			switch {
			case !md.IsDefined("supervision", k.key):
				k.set()
				ch.Action = MigrationMoved
			case k.equal:
				ch.Action = MigrationSame
			default:
				ch.Action = MigrationKept
				ch.Detail = "supervision." + k.key + " is set explicitly and wins; the legacy value is dropped"
			}
			changes = append(changes, ch)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, legacy, err
	}
	return &cfg, changes, legacy, nil
}

// mergeEndpoints adds the legacy endpoints to catalog.codex_homes, each once. Entries are
// named by position, never by value: the paths of Codex homes stay out of every message.
func mergeEndpoints(cfg *Config, endpoints []string) (MigrationChange, error) {
	ch := MigrationChange{From: LegacyTable + ".endpoints", To: "catalog.codex_homes", Action: MigrationMerged}
	added, listed := 0, 0
	for i, ep := range endpoints {
		if ep == "" || !filepath.IsAbs(ep) || strings.ContainsRune(ep, 0) {
			return ch, model.Errorf(model.CodeInvalidArgument, "give each endpoint as the absolute path of a Codex home, then run `"+FixCommand+"` again",
				"config: %s.endpoints[%d] is not an absolute path", LegacyTable, i)
		}
		clean := filepath.Clean(ep)
		if slices.ContainsFunc(cfg.Catalog.CodexHomes, func(h string) bool { return filepath.Clean(h) == clean }) {
			listed++
			continue
		}
		cfg.Catalog.CodexHomes = append(cfg.Catalog.CodexHomes, clean)
		added++
	}
	ch.Detail = fmt.Sprintf("%d added, %d already listed", added, listed)
	return ch, nil
}

// ptrValue is the value of a set pointer, or nil (an untyped nil, so callers can test it).
func ptrValue[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
