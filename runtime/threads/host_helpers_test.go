package threads_test

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// The tests of this package that drive a whole Host over its socket (runtime/hosttest) share
// these: refs a delegation carries, and checks of lists, transcripts and usage.

const (
	refA = "https://github.com/o/r/issues/12"
	refB = "https://github.com/o/r/issues/34"
	refC = "https://example.com/spec#section-2"
)

func findThread(threads []model.ThreadInfo, id string) (model.ThreadInfo, bool) {
	for _, th := range threads {
		if th.ID == id {
			return th, true
		}
	}
	return model.ThreadInfo{}, false
}

func strIDs(ids []model.ThreadID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// turnsInTranscript counts the turns an external thread's transcript records.
func turnsInTranscript(t *testing.T, th *hosttest.Host, id string) int {
	t.Helper()
	n := 0
	for _, line := range bytes.Split(th.Transcript(id), []byte("\n")) {
		var e struct {
			Type string `json:"type"`
		}
		if len(line) > 0 && json.Unmarshal(line, &e) == nil && e.Type == "turnStarted" {
			n++
		}
	}
	return n
}

// wantTokens fails unless u holds exactly these counts (total = input + output) and turns.
func wantTokens(t *testing.T, what string, u *model.Usage, input, cached, output, reasoning int64, turns int) {
	t.Helper()
	want := model.TokenCounts{Input: input, CachedInput: cached, Output: output, Reasoning: reasoning, Total: input + output}
	if u == nil || u.TokenCounts != want || u.Turns != turns {
		t.Fatalf("%s: usage %+v, want %+v over %d turns", what, u, want, turns)
	}
}

// lockedSet collects strings from many goroutines.
type lockedSet struct {
	mu sync.Mutex
	m  map[string]int
}

func (s *lockedSet) add(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]int{}
	}
	s.m[v]++
}
