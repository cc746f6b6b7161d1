package config

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Live is a home's config.toml as a running runtime reads it: reread when the file changed
// (a stat otherwise), so that clients added with `codexhost client add`, grants and switches
// take effect on the next call without a restart. Harness changes need a restart.
type Live struct {
	home string
	logf func(format string, args ...any)

	mu    sync.Mutex
	cfg   *Config
	stamp time.Time
}

// NewLive reads nothing yet: Reload must succeed once before Get is used. logf is told of
// a reread that failed, when Current carries on with the config last read.
func NewLive(home string, logf func(format string, args ...any)) *Live {
	return &Live{home: home, logf: logf}
}

// Get is the config as last read.
func (l *Live) Get() *Config {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg
}

// Reload rereads the file when it changed since the last read.
func (l *Live) Reload() error {
	var stamp time.Time
	if st, err := os.Stat(filepath.Join(l.home, FileName)); err == nil {
		stamp = st.ModTime()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cfg != nil && stamp.Equal(l.stamp) {
		return nil
	}
	cfg, err := Load(l.home)
	if err != nil {
		return err
	}
	l.cfg, l.stamp = cfg, stamp
	return nil
}

// Current is Reload then Get; a reread that fails is logged and the last config kept.
func (l *Live) Current() *Config {
	if err := l.Reload(); err != nil {
		l.logf("config reload failed; the runtime keeps the config it read last until the file is fixed: %v", err)
	}
	return l.Get()
}

// Fresh is Reload then Get, failing when the file cannot be read.
func (l *Live) Fresh() (*Config, error) {
	if err := l.Reload(); err != nil {
		return nil, err
	}
	return l.Get(), nil
}
