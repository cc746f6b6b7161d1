package hosttest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/store"
)

// TranscriptDir is where the home's external threads keep their transcripts.
func (th *Host) TranscriptDir() string { return filepath.Join(th.Home, "transcripts") }

// Transcripts lists the external threads' transcript files.
func (th *Host) Transcripts() []string {
	th.T.Helper()
	entries, err := os.ReadDir(th.TranscriptDir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		th.T.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Transcript is the transcript file of the external thread id.
func (th *Host) Transcript(id string) []byte {
	th.T.Helper()
	b, err := os.ReadFile(filepath.Join(th.TranscriptDir(), id+".jsonl"))
	if err != nil {
		th.T.Fatal(err)
	}
	return b
}

// DumpStore reads every key and value of a closed home's database, whatever its prefix, and
// fails when it holds no origin record: every test home has a thread by then, so an empty
// dump is a scan that silently saw nothing.
func DumpStore(t testing.TB, home string) map[string]string {
	t.Helper()
	out := ReadStore(t, home)
	found := false
	for k := range out {
		found = found || strings.HasPrefix(k, store.PrefixOrigin+"/")
	}
	if !found {
		t.Fatalf("the store dump holds no origin record: %v", out)
	}
	return out
}

// ThreadIDs are the ids of threads, in order.
func ThreadIDs(threads []model.ThreadInfo) []string {
	ids := make([]string, len(threads))
	for i, th := range threads {
		ids[i] = th.ID
	}
	return ids
}

// SameSet says whether a and b hold the same strings, in any order.
func SameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
