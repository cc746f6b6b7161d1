package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

const damageRecords = 2000

// populatedHome returns a closed home holding damageRecords notes in at least one table.
func populatedHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range damageRecords {
		if err := s.Put("note", fmt.Sprintf("n%05d", i), note{Record{V: 1}, strings.Repeat("x", 64)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(tableFiles(t, home)) == 0 {
		t.Fatal("closing the store left no table file to damage")
	}
	return home
}

func tableFiles(t *testing.T, home string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(home, DBDir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// snapshot maps every file of the db directory to its content.
func snapshot(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(home, DBDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(home, DBDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func countNotes(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	if err := s.Scan("note", func(string, []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// Each kind of damage is refused with STORE_DAMAGED naming the damage and the way out, and
// the open leaves every file of the database exactly as it found it.
func TestOpenRefusesDamagedStore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage func(t *testing.T, home string)
		want   string
	}{
		{"missing MANIFEST", func(t *testing.T, home string) {
			if err := os.Remove(filepath.Join(home, DBDir, "MANIFEST")); err != nil {
				t.Fatal(err)
			}
		}, "MANIFEST is missing"},
		{"random bytes in a table", func(t *testing.T, home string) {
			path := tableFiles(t, home)[0]
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			for i := len(b) / 4; i < len(b)/4+64; i++ {
				b[i] ^= byte(r.IntN(255) + 1)
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "fails its checks"},
		{"truncated table", func(t *testing.T, home string) {
			path := tableFiles(t, home)[0]
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}, "fails its checks"},
		{"table listed in MANIFEST removed", func(t *testing.T, home string) {
			if err := os.Remove(tableFiles(t, home)[0]); err != nil {
				t.Fatal(err)
			}
		}, "are missing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := populatedHome(t)
			tc.damage(t, home)
			before := snapshot(t, home)
			s, err := Open(home, Options{})
			if err == nil {
				n := countNotes(t, s)
				_ = s.Close()
				t.Fatalf("a damaged store opened with %d of %d records", n, damageRecords)
			}
			if !model.IsCode(err, model.CodeStoreDamaged) {
				t.Fatalf("error = %v, want STORE_DAMAGED", err)
			}
			me := model.AsError(err)
			if !strings.Contains(me.Message, tc.want) || !strings.Contains(me.Hint, "codexhost restore") {
				t.Fatalf("error %q does not say %q or the way out", err, tc.want)
			}
			after := snapshot(t, home)
			for name, content := range before {
				if after[name] != content {
					t.Fatalf("open changed or removed %s", name)
				}
			}
		})
	}
}

// A table the MANIFEST does not list (a crash between writing it and recording it) is moved
// aside, never deleted, and the store opens with every record.
func TestOpenSetsAsideUnlistedTable(t *testing.T) {
	t.Parallel()
	home := populatedHome(t)
	src := tableFiles(t, home)[0]
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(home, DBDir, "999999.sst")
	if err := os.WriteFile(stray, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := countNotes(t, s); n != damageRecords {
		t.Fatalf("store has %d records, want %d", n, damageRecords)
	}
	moved, _ := filepath.Glob(filepath.Join(home, SetAsideDir, "*-999999.sst"))
	if len(moved) != 1 {
		t.Fatalf("unlisted table not set aside: %v", moved)
	}
	if got, _ := os.ReadFile(moved[0]); string(got) != string(b) {
		t.Fatal("the set-aside table differs from the original")
	}
}

// An intact store opens with every record (the checks do not refuse a healthy one).
func TestOpenIntactStoreAfterChecks(t *testing.T) {
	t.Parallel()
	home := populatedHome(t)
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := countNotes(t, s); n != damageRecords {
		t.Fatalf("store has %d records, want %d", n, damageRecords)
	}
}
