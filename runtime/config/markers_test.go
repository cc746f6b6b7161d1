package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMarkersConfigRoundTripAndValidation(t *testing.T) {
	home := t.TempDir()
	c := &Config{Harnesses: map[string]Harness{"box": {Command: []string{"sh"}}}}
	c.Markers = Markers{MaxActiveThreads: 3, RetryClients: []string{"bot"}, Executors: map[string]string{"docker": "box"}}
	if err := Save(home, c); err != nil {
		t.Fatal(err)
	}
	got, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if got.Markers.ActiveQuota() != 3 || !got.Markers.MayRetry("bot") || got.Markers.MayRetry("other") || got.Markers.Executors["docker"] != "box" || got.Markers.WorkerSlots() != DefaultMarkerWorkers {
		t.Fatalf("markers %+v", got.Markers)
	}
	if (Markers{}).ActiveQuota() != DefaultMaxActiveThreads {
		t.Fatal("default quota")
	}
	for _, tc := range []struct {
		m    Markers
		want int
	}{{Markers{}, DefaultMarkerWorkers / 2}, {Markers{Workers: 1}, 1}, {Markers{Workers: 3}, 2},
		{Markers{Workers: 4, WorkersPerPrincipal: 9}, 4}, {Markers{WorkersPerPrincipal: 1}, 1}} {
		if got := tc.m.PrincipalSlots(); got != tc.want {
			t.Fatalf("%+v: share %d, want %d", tc.m, got, tc.want)
		}
	}
	for _, bad := range []string{"[markers.executors]\nk8s = \"codex\"\n", "[markers.executors]\ndocker = \"nope\"\n", "[markers]\nmax_active_threads = -1\n", "[markers]\nworkers_per_principal = -2\n"} {
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(home); err == nil || !strings.Contains(err.Error(), "config") {
			t.Fatalf("%q accepted: %v", bad, err)
		}
	}
}
