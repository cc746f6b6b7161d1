package store

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// killedUsage are the reports the "usage" child records before it is killed: two turns of
// one thread, as the App Server counts them (a running total since the thread began).
var killedUsage = []model.UsageReport{
	{Turn: "a", Total: model.TokenCounts{Input: 100, CachedInput: 20, Output: 30, Reasoning: 5, Total: 130},
		Last: model.TokenCounts{Input: 100, CachedInput: 20, Output: 30, Reasoning: 5, Total: 130}, Model: "m"},
	{Turn: "b", Total: model.TokenCounts{Input: 150, CachedInput: 20, Output: 40, Reasoning: 5, Total: 190},
		Last: model.TokenCounts{Input: 50, Output: 10, Total: 60}, Model: "m"},
}

// The usage a process recorded is there, thread total and turns, after it is SIGKILLed right
// after the last report returned.
func TestRecordedUsageSurvivesKill(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	c := startChild(t, "usage", home, "recorded")
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if ws := c.wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed", ws)
	}
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	total, err := s.ThreadUsage("t1")
	want := model.TokenCounts{Input: 150, CachedInput: 20, Output: 40, Reasoning: 5, Total: 190}
	if err != nil || total.Tokens != want || total.Turns != 2 || total.Principal != "client:bot" {
		t.Fatalf("thread total after kill: %+v %v, want %+v over 2 turns", total, err, want)
	}
	turns := map[string]int64{}
	if err := s.TurnUsages(func(u model.TurnUsage) error { turns[u.Turn] = u.Tokens.Total; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns["a"] != 130 || turns["b"] != 60 {
		t.Fatalf("turns after kill: %v, want a=130 b=60", turns)
	}
}
