package harness

import (
	"strings"
	"testing"
)

// The last valid usage line on stderr is the turn's usage; other lines, malformed or
// negative ones, and overlong lines count nothing; no line is no usage.
func TestExternalUsageLineIsReadFromStderr(t *testing.T) {
	t.Parallel()
	long := UsageLinePrefix + ` {"input":1,"output":1,"model":"` + strings.Repeat("x", extMaxUsageLine) + `"}`
	in := strings.Join([]string{
		"warming up",
		UsageLinePrefix + ` {"input":5,"output":1}`,
		UsageLinePrefix + ` not json`,
		UsageLinePrefix + ` {"input":-1,"output":1}`,
		UsageLinePrefix + ` {"input":100,"cachedInput":40,"output":20,"reasoning":5,"model":"m","contextWindow":1000}`,
		long,
		UsageLinePrefix + ` {"input":-3,"output":1}`,
	}, "\n")
	got := extReadStderr(strings.NewReader(in), 64)
	r := got.usage.report("turn-1")
	if r == nil || r.TurnTotal == nil || r.TurnTotal.Total != 120 || r.TurnTotal.CachedInput != 40 || r.Model != "m" || r.ContextWindow != 1000 || r.Turn != "turn-1" {
		t.Fatalf("usage %+v", r)
	}
	if len(got.tail) != 64 {
		t.Fatalf("tail of %d bytes", len(got.tail))
	}
	if none := extReadStderr(strings.NewReader("no usage here\n"), 64); none.usage.report("t") != nil {
		t.Fatalf("usage without a line: %+v", none.usage)
	}
	if neg := extReadStderr(strings.NewReader(UsageLinePrefix+` {"input":-1}`), 64); neg.usage.report("t") != nil {
		t.Fatal("a negative count was taken")
	}
}
