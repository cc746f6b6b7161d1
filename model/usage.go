package model

import (
	"maps"
	"math"
	"slices"
	"time"
)

// Token usage: numbers only, never content. A native thread's App Server reports them as
// thread/tokenUsage/updated; an external harness may print a usage line on stderr
// (UsageLinePrefix). Nothing else is ever estimated: a thread that reported nothing has no
// usage (null), which is not the same as zero tokens.

// TokenCounts are the tokens of a turn, a thread or a sum of threads. Cached input is part of
// input and reasoning part of output, as the Responses API counts them.
type TokenCounts struct {
	Input       int64 `json:"input" doc:"input tokens (cached ones included)"`
	CachedInput int64 `json:"cachedInput" doc:"input tokens read from the prompt cache"`
	Output      int64 `json:"output" doc:"output tokens (reasoning included)"`
	Reasoning   int64 `json:"reasoning" doc:"reasoning output tokens"`
	Total       int64 `json:"total" doc:"input plus output tokens"`
}

// Plus adds b to a.
func (a TokenCounts) Plus(b TokenCounts) TokenCounts {
	return TokenCounts{Input: a.Input + b.Input, CachedInput: a.CachedInput + b.CachedInput, Output: a.Output + b.Output,
		Reasoning: a.Reasoning + b.Reasoning, Total: a.Total + b.Total}
}

// Minus is a - b, each count at least 0 (a counter that went back counts nothing).
func (a TokenCounts) Minus(b TokenCounts) TokenCounts {
	sub := func(x, y int64) int64 { return max(x-y, 0) }
	return TokenCounts{Input: sub(a.Input, b.Input), CachedInput: sub(a.CachedInput, b.CachedInput), Output: sub(a.Output, b.Output),
		Reasoning: sub(a.Reasoning, b.Reasoning), Total: sub(a.Total, b.Total)}
}

// Valid reports counts that could have been measured: none negative.
func (a TokenCounts) Valid() bool {
	return a.Input >= 0 && a.CachedInput >= 0 && a.Output >= 0 && a.Reasoning >= 0 && a.Total >= 0
}

// UsageReport is one report of a thread's usage, as a harness saw it.
type UsageReport struct {
	Turn string // the turn it belongs to; "" reports only the context of the thread
	// Total is the thread's running total as the harness counts it (App Server: since the
	// thread began); Last is what the latest model request used. A report whose Total is
	// unknown (external harnesses) sets TurnTotal instead: the turn's own tokens.
	Total, Last   TokenCounts
	TurnTotal     *TokenCounts
	ContextWindow int64  // the model's context window; 0 when unknown
	Model         string // the model that answered; "" when unknown
}

// TurnUsage is the stored usage of one turn of a thread.
type TurnUsage struct {
	Thread ThreadID    `json:"thread"`
	Turn   string      `json:"turn"`
	Tokens TokenCounts `json:"tokens"`
	// Base is the harness's running total before the turn (Total minus Tokens), so that a
	// repeated report of the same total adds nothing.
	Base      TokenCounts `json:"base"`
	Model     string      `json:"model,omitempty"`
	Principal string      `json:"principal,omitempty"`
	At        time.Time   `json:"at"` // when the turn first reported usage
	UpdatedAt time.Time   `json:"updatedAt"`
}

// Day is the UTC day of a time, as usage is summed per day.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// ThreadUsage is the stored total of a thread: the sum of its turns, and its context.
type ThreadUsage struct {
	Thread        ThreadID    `json:"thread"`
	Tokens        TokenCounts `json:"tokens"`
	Turns         int         `json:"turns"`
	LastTurn      string      `json:"lastTurn,omitempty"`
	ContextWindow int64       `json:"contextWindow,omitempty"`
	ContextTokens int64       `json:"contextTokens,omitempty"` // the latest request's tokens: what fills the window
	Model         string      `json:"model,omitempty"`
	// ByModel splits Tokens by the model of each turn, so an estimate prices every turn at
	// its own model's price, as usage.summary does; nil on records from before it existed.
	ByModel   map[string]TokenCounts `json:"byModel,omitempty"`
	Principal string                 `json:"principal,omitempty"`
	UpdatedAt time.Time              `json:"updatedAt"`
}

// ApplyUsage folds a report into a turn's and its thread's records (either may be the zero
// value when new) and returns them, with what the report added to the thread's tokens.
func ApplyUsage(turn TurnUsage, thread ThreadUsage, r UsageReport, at time.Time) (TurnUsage, ThreadUsage, TokenCounts) {
	if r.Model != "" {
		thread.Model = r.Model
	}
	if r.ContextWindow > 0 {
		thread.ContextWindow = r.ContextWindow
	}
	thread.UpdatedAt = at
	if r.Turn == "" {
		if r.Last.Total > 0 {
			thread.ContextTokens = r.Last.Total
		}
		return turn, thread, TokenCounts{}
	}
	if turn.Turn == "" {
		turn.Turn, turn.At = r.Turn, at
		turn.Base = r.Total.Minus(r.Last)
		thread.Turns++
	}
	var next TokenCounts
	switch {
	case r.TurnTotal != nil:
		next = *r.TurnTotal
	case r.Total.Total < turn.Base.Total:
		// The harness's counter restarted (a new process that did not restore it): what
		// this request used comes on top of what the turn had.
		turn.Base = r.Total.Minus(turn.Tokens.Plus(r.Last))
		next = turn.Tokens.Plus(r.Last)
	default:
		next = r.Total.Minus(turn.Base)
	}
	if next.Total < turn.Tokens.Total {
		next = turn.Tokens // a late, older report never takes tokens back
	}
	added := next.Minus(turn.Tokens)
	thread.ByModel = thread.splitByModel()
	thread.ByModel[turn.Model] = thread.ByModel[turn.Model].Minus(turn.Tokens)
	turn.Tokens, turn.UpdatedAt = next, at
	if r.Model != "" {
		turn.Model = r.Model
	} else if turn.Model == "" {
		turn.Model = thread.Model
	}
	// The turn's tokens move with it when a later report names another model.
	thread.ByModel[turn.Model] = thread.ByModel[turn.Model].Plus(turn.Tokens)
	thread.Tokens = thread.Tokens.Plus(added)
	thread.LastTurn = r.Turn
	if r.Last.Total > 0 {
		thread.ContextTokens = r.Last.Total
	}
	return turn, thread, added
}

// Price is what a model costs per million tokens (config [usage.prices]).
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cachedInput"`
	Output      float64 `json:"output"`
}

// Cost estimates what tokens cost at p: uncached input, cached input and output each at
// their own rate.
func (p Price) Cost(t TokenCounts) float64 {
	uncached := max(t.Input-t.CachedInput, 0)
	c := (float64(uncached)*p.Input + float64(t.CachedInput)*p.CachedInput + float64(t.Output)*p.Output) / 1e6
	return math.Round(c*1e6) / 1e6
}

// CostEstimate is an estimated cost, computed from configured prices; never a bill.
type CostEstimate struct {
	Estimate bool    `json:"estimate" doc:"always true: computed from the prices in config.toml, not billed amounts"`
	Amount   float64 `json:"amount" doc:"the estimated cost, in the currency of the configured prices"`
	// Unpriced counts the tokens of models without a configured price, left out of Amount.
	UnpricedTokens int64 `json:"unpricedTokens" doc:"tokens of models without a configured price, not in amount"`
}

// Usage is the public view of a thread's (or a sum of threads') usage: the `usage` field of
// thread read, wait, list, lineage and watch notifications. It is null when nothing was
// reported.
type Usage struct {
	TokenCounts
	Turns int `json:"turns" doc:"turns that reported usage"`
	// ContextWindow and ContextTokens are the thread's context: how much of the model's window
	// the latest request filled. Absent on sums.
	ContextWindow int64    `json:"contextWindow,omitempty" doc:"the model's context window, when known"`
	ContextTokens int64    `json:"contextTokens,omitempty" doc:"tokens of the latest request: what fills the window"`
	ContextFill   *float64 `json:"contextFill,omitempty" doc:"contextTokens / contextWindow (0 to 1), when both are known"`
	// EstimatedCost is set only when config.toml prices at least one of the models.
	EstimatedCost *CostEstimate `json:"estimatedCost,omitempty" doc:"an estimate from [usage.prices]; absent when no price is set"`
}

// PriceBook finds the price of a model; ok is false when none is configured.
type PriceBook func(model string) (Price, bool)

// ViewUsage is the public view of a thread's stored usage; nil for nil.
func ViewUsage(u *ThreadUsage, prices PriceBook) *Usage {
	if u == nil {
		return nil
	}
	v := &Usage{TokenCounts: u.Tokens, Turns: u.Turns, ContextWindow: u.ContextWindow, ContextTokens: u.ContextTokens}
	if u.ContextWindow > 0 && u.ContextTokens > 0 {
		f := math.Round(float64(u.ContextTokens)/float64(u.ContextWindow)*1e4) / 1e4
		v.ContextFill = &f
	}
	v.EstimatedCost = u.estimate(prices)
	return v
}

// splitByModel is ByModel, made (a copy, never shared with the record read) for a record
// from before it existed: every token then counts as the thread's latest model's.
func (u ThreadUsage) splitByModel() map[string]TokenCounts {
	out := make(map[string]TokenCounts, len(u.ByModel)+1)
	for m, t := range u.ByModel {
		out[m] = t
	}
	if u.ByModel == nil && u.Tokens != (TokenCounts{}) {
		out[u.Model] = u.Tokens
	}
	return out
}

// estimate prices each model's tokens at its own price, in a stable order; tokens of
// unpriced models met before the first priced one still count as unpriced.
func (u ThreadUsage) estimate(prices PriceBook) *CostEstimate {
	byModel := u.splitByModel()
	var e *CostEstimate
	var unpricedBefore int64
	for _, m := range slices.Sorted(maps.Keys(byModel)) {
		if e = estimate(e, m, byModel[m], prices); e == nil {
			unpricedBefore += byModel[m].Total
		}
	}
	if e != nil {
		e.UnpricedTokens += unpricedBefore
	}
	return e
}

// estimate adds tokens of a model to an estimate (nil: none yet); it stays nil while no
// model has a price.
func estimate(e *CostEstimate, modelName string, t TokenCounts, prices PriceBook) *CostEstimate {
	if prices == nil {
		return e
	}
	p, ok := prices(modelName)
	if !ok {
		if e != nil {
			e.UnpricedTokens += t.Total
		}
		return e
	}
	if e == nil {
		e = &CostEstimate{Estimate: true}
	}
	e.Amount = math.Round((e.Amount+p.Cost(t))*1e6) / 1e6
	return e
}

// SumUsage adds b to a, the view of a group of threads; nil counts nothing, and the sum of
// nothing but nils is nil. Context fields are dropped: a sum has no window. Tokens of b
// without an estimate count as unpriced once a is priced.
func SumUsage(a, b *Usage) *Usage {
	if b == nil {
		return a
	}
	if a == nil {
		s := &Usage{TokenCounts: b.TokenCounts, Turns: b.Turns}
		if b.EstimatedCost != nil {
			c := *b.EstimatedCost
			s.EstimatedCost = &c
		}
		return s
	}
	s := &Usage{TokenCounts: a.TokenCounts.Plus(b.TokenCounts), Turns: a.Turns + b.Turns}
	switch {
	case a.EstimatedCost != nil && b.EstimatedCost != nil:
		s.EstimatedCost = &CostEstimate{Estimate: true, Amount: math.Round((a.EstimatedCost.Amount+b.EstimatedCost.Amount)*1e6) / 1e6,
			UnpricedTokens: a.EstimatedCost.UnpricedTokens + b.EstimatedCost.UnpricedTokens}
	case a.EstimatedCost != nil:
		c := *a.EstimatedCost
		c.UnpricedTokens += b.Total
		s.EstimatedCost = &c
	case b.EstimatedCost != nil:
		c := *b.EstimatedCost
		c.UnpricedTokens += a.Total
		s.EstimatedCost = &c
	}
	return s
}

// TurnsUsage is the view of a set of turns (of any threads), priced by each turn's model.
func TurnsUsage(turns []TurnUsage, prices PriceBook) *Usage {
	if len(turns) == 0 {
		return nil
	}
	v := &Usage{}
	var cost *CostEstimate
	var unpricedBefore int64
	for _, t := range turns {
		v.TokenCounts = v.TokenCounts.Plus(t.Tokens)
		v.Turns++
		had := cost != nil
		cost = estimate(cost, t.Model, t.Tokens, prices)
		if !had && cost == nil {
			unpricedBefore += t.Tokens.Total
		}
	}
	if cost != nil {
		cost.UnpricedTokens += unpricedBefore
	}
	v.EstimatedCost = cost
	return v
}

// TotalUsage sums views (nil ones count nothing); nil when all are nil.
func TotalUsage(us ...*Usage) *Usage {
	var sum *Usage
	for _, u := range us {
		sum = SumUsage(sum, u)
	}
	return sum
}
