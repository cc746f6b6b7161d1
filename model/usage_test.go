package model

import (
	"testing"
	"time"
)

// A repeated report of the same running total adds nothing; a second turn counts only what
// its requests added; a restarted counter keeps what the turn had and adds the new request.
func TestApplyUsageCountsEachTurnOnceFromTheRunningTotal(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := func(in, out int64) TokenCounts { return TokenCounts{Input: in, Output: out, Total: in + out} }
	var th ThreadUsage
	var t1, t2 TurnUsage
	t1, th, _ = ApplyUsage(t1, th, UsageReport{Turn: "a", Total: c(10, 5), Last: c(10, 5), ContextWindow: 100}, at)
	t1, th, _ = ApplyUsage(t1, th, UsageReport{Turn: "a", Total: c(10, 5), Last: c(10, 5)}, at)
	if t1.Tokens != c(10, 5) || th.Tokens != c(10, 5) || th.Turns != 1 {
		t.Fatalf("repeated report: turn %+v thread %+v", t1.Tokens, th)
	}
	t1, th, _ = ApplyUsage(t1, th, UsageReport{Turn: "a", Total: c(30, 8), Last: c(20, 3)}, at)
	t2, th, _ = ApplyUsage(t2, th, UsageReport{Turn: "b", Total: c(70, 10), Last: c(40, 2)}, at)
	if t1.Tokens != c(30, 8) || t2.Tokens != c(40, 2) || th.Tokens != c(70, 10) || th.Turns != 2 || th.ContextTokens != 42 || th.ContextWindow != 100 {
		t.Fatalf("two turns: %+v %+v thread %+v", t1.Tokens, t2.Tokens, th)
	}
	t2, th, _ = ApplyUsage(t2, th, UsageReport{Turn: "b", Total: c(5, 1), Last: c(5, 1)}, at)
	if t2.Tokens != c(45, 3) || th.Tokens != c(75, 11) {
		t.Fatalf("restarted counter: turn %+v thread %+v", t2.Tokens, th.Tokens)
	}
	if _, th2, _ := ApplyUsage(TurnUsage{}, th, UsageReport{Total: c(1, 1), Last: c(1, 1)}, at); th2.Tokens != th.Tokens || th2.Turns != 2 {
		t.Fatalf("a report without a turn counted tokens: %+v", th2)
	}
}

func TestEstimatesNeedAPriceAndCountUnpricedTokens(t *testing.T) {
	u := &ThreadUsage{Tokens: TokenCounts{Input: 1_000_000, CachedInput: 400_000, Output: 100_000, Total: 1_100_000}, Turns: 1, Model: "m"}
	if v := ViewUsage(u, nil); v.EstimatedCost != nil {
		t.Fatalf("an estimate without prices: %+v", v.EstimatedCost)
	}
	prices := func(name string) (Price, bool) { return Price{Input: 2, CachedInput: 0.5, Output: 10}, name == "m" }
	v := ViewUsage(u, prices)
	// 600k uncached × 2 + 400k cached × 0.5 + 100k out × 10, per million.
	if v.EstimatedCost == nil || !v.EstimatedCost.Estimate || v.EstimatedCost.Amount != 2.4 {
		t.Fatalf("estimate %+v", v.EstimatedCost)
	}
	other := ViewUsage(&ThreadUsage{Tokens: TokenCounts{Total: 7}, Model: "x"}, prices)
	sum := TotalUsage(v, nil, other)
	if sum.Total != 1_100_007 || sum.EstimatedCost.Amount != 2.4 || sum.EstimatedCost.UnpricedTokens != 7 || sum.ContextWindow != 0 {
		t.Fatalf("sum %+v %+v", sum, sum.EstimatedCost)
	}
	if TotalUsage(nil, nil) != nil {
		t.Fatal("the sum of unknowns is known")
	}
}

func TestSinceDayReadsDaysAndSpans(t *testing.T) {
	now := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{"": "", "2026-01-31": "2026-01-31", "7d": "2026-03-03", "2h": "2026-03-09"} {
		if got, err := SinceDay(in, now); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := SinceDay("yesterday", now); !IsCode(err, CodeInvalidArgument) {
		t.Fatalf("bad --since: %v", err)
	}
}

// A thread whose turns used different models is priced turn by turn, as usage.summary prices
// its turns: a later turn of an unpriced model neither drops the estimate of the priced turns
// nor is priced at their rate; a turn whose model is named only by a later report moves.
func TestThreadEstimatePricesEachTurnAtItsOwnModel(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	prices := func(name string) (Price, bool) { return Price{Input: 1000, Output: 2000}, name == "m1" }
	c := func(in, out int64) *TokenCounts { return &TokenCounts{Input: in, Output: out, Total: in + out} }
	var th ThreadUsage
	var turns []TurnUsage
	for _, r := range []UsageReport{
		{Turn: "a", TurnTotal: c(1000, 1000), Model: "m1"},
		{Turn: "b", TurnTotal: c(10, 10), Model: "m2"},
		{Turn: "c", TurnTotal: c(5, 5)},              // the thread's latest model, m2, until…
		{Turn: "c", TurnTotal: c(7, 7), Model: "m1"}, // …a later report names m1
	} {
		var turn TurnUsage
		if n := len(turns); n > 0 && turns[n-1].Turn == r.Turn {
			turn, turns = turns[n-1], turns[:n-1]
		}
		turn, th, _ = ApplyUsage(turn, th, r, at)
		turns = append(turns, turn)
	}
	view, sum := ViewUsage(&th, prices), TurnsUsage(turns, prices)
	if view.EstimatedCost == nil || sum.EstimatedCost == nil || *view.EstimatedCost != *sum.EstimatedCost || view.Total != sum.Total {
		t.Fatalf("the thread's estimate %+v, its turns' %+v", view.EstimatedCost, sum.EstimatedCost)
	}
	if e := view.EstimatedCost; e.Amount != 3.021 || e.UnpricedTokens != 20 {
		t.Fatalf("estimate %+v, want 3.021 for m1's 2014 tokens and 20 unpriced", e)
	}
	// A record written before tokens were split by model prices them all at its model.
	old := ViewUsage(&ThreadUsage{Tokens: *c(1000, 1000), Turns: 1, Model: "m1"}, prices)
	if old.EstimatedCost == nil || old.EstimatedCost.Amount != 3 {
		t.Fatalf("an older record's estimate %+v", old.EstimatedCost)
	}
}
