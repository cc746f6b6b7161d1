package config

import (
	"fmt"

	"github.com/codexhost/codexhost/model"
)

// CompatTools is the policy of the agent-facing compat tools (`codexhost compat …`) for the
// processes the host starts, which authenticate with the runtime token. External clients
// bring their own flags and scopes instead (Client, Grant). Everything is off by default:
// the tools are refused until Enabled is set, transcripts need AllowRawTranscripts, and
// steering or interrupting a running turn needs AllowWriteControls.
type CompatTools struct {
	Enabled             bool `toml:"enabled,omitempty"`
	AllowRawTranscripts bool `toml:"allowRawTranscripts,omitempty"`
	AllowWriteControls  bool `toml:"allowWriteControls,omitempty"`
	// MaxStoredSessions caps the stored (not loaded) rows one endpoint adds to a compat
	// session list that asks for them; 0 is DefaultMaxStoredSessions.
	MaxStoredSessions int `toml:"max_stored_sessions,omitempty,omitzero"`
}

// Bounds of max_stored_sessions, in config.toml and per call.
const (
	DefaultMaxStoredSessions = 200
	MaxStoredSessionsLimit   = 1000
)

// StoredCap is the configured cap of stored rows per endpoint, or the default.
func (s CompatTools) StoredCap() int {
	if s.MaxStoredSessions > 0 {
		return s.MaxStoredSessions
	}
	return DefaultMaxStoredSessions
}

// CheckStoredCap refuses a cap outside 1..1000; key names where the value came from.
func CheckStoredCap(key string, n int) error {
	if n < 1 || n > MaxStoredSessionsLimit {
		return model.Errorf(model.CodeInvalidArgument, fmt.Sprintf("give %s from 1 to %d", key, MaxStoredSessionsLimit),
			"%s is %d; it must be from 1 to %d", key, n, MaxStoredSessionsLimit)
	}
	return nil
}

func (c *Config) validateCompatTools() error {
	if n := c.CompatTools.MaxStoredSessions; n != 0 {
		if err := CheckStoredCap("supervision.max_stored_sessions", n); err != nil {
			return model.Errorf(model.CodeInvalidArgument, "set supervision.max_stored_sessions from 1 to 1000 in config.toml, or remove it for the default of 200", "config: %s", model.AsError(err).Message)
		}
	}
	return nil
}
