package model

import (
	"fmt"
	"strconv"
)

// NoUsage is how views show usage that was never reported.
const NoUsage = "—"

// ShortTokens writes a count of tokens for a narrow column: 950, 12.3k, 4.1M.
func ShortTokens(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return trimTenth(float64(n)/1e3) + "k"
	case n < 1_000_000_000:
		return trimTenth(float64(n)/1e6) + "M"
	}
	return trimTenth(float64(n)/1e9) + "G"
}

func trimTenth(f float64) string {
	if f >= 100 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// ShortUsage is a usage in a few characters: its total tokens, "—" when unknown.
func ShortUsage(u *Usage) string {
	if u == nil {
		return NoUsage
	}
	return ShortTokens(u.Total)
}

// CostText is an estimated cost, marked as one: "≈0.0123 est."; "" without an estimate.
func CostText(u *Usage) string {
	if u == nil || u.EstimatedCost == nil {
		return ""
	}
	s := "≈" + strconv.FormatFloat(u.EstimatedCost.Amount, 'f', 4, 64) + " est."
	if u.EstimatedCost.UnpricedTokens > 0 {
		s += fmt.Sprintf(" +%s unpriced", ShortTokens(u.EstimatedCost.UnpricedTokens))
	}
	return s
}

// ContextText is how full the context window is, "ctx 12% of 258k"; "" when unknown.
func ContextText(u *Usage) string {
	if u == nil || u.ContextFill == nil {
		return ""
	}
	return fmt.Sprintf("ctx %.0f%% of %s", *u.ContextFill*100, ShortTokens(u.ContextWindow))
}

// UsageLine is a usage on one line for people: "15 tok (in 10, cached 0, out 5, reasoning 0)".
func UsageLine(u *Usage) string {
	if u == nil {
		return NoUsage
	}
	s := fmt.Sprintf("%s tok (in %s, cached %s, out %s, reasoning %s)", ShortTokens(u.Total), ShortTokens(u.Input),
		ShortTokens(u.CachedInput), ShortTokens(u.Output), ShortTokens(u.Reasoning))
	if c := CostText(u); c != "" {
		s += " " + c
	}
	return s
}
