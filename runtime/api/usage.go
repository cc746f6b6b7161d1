package api

import "github.com/codexhost/codexhost/model"

// MethodUsageSummary sums recorded token usage since a day, by thread, by delegation tree
// or by principal and day. A caller sees only its own principal's usage unless it is the
// operator (or a client holding operator.read).
const MethodUsageSummary = "usage.summary"

// Groupings of usage.summary.
const (
	UsageByThread    = "thread"
	UsageByTree      = "tree"
	UsageByPrincipal = "principal"
)

// UsageSummaryParams select the turns summed.
type UsageSummaryParams struct {
	// Since is a UTC day (2006-01-02) or a span back from now (36h, 7d); "" is every turn.
	Since string `json:"since,omitempty"`
	// By is UsageByThread (the default), UsageByTree or UsageByPrincipal.
	By string `json:"by,omitempty"`
}

// UsageSummaryResult is one row per thread, tree or principal and day, the largest first
// (principal rows: by principal, then day).
type UsageSummaryResult struct {
	By    string       `json:"by" doc:"thread, tree or principal"`
	Since string       `json:"since,omitempty" doc:"the first UTC day counted (2006-01-02); absent when every turn counts"`
	Rows  []UsageRow   `json:"rows" doc:"one per thread, tree (its root thread) or principal and day"`
	Total *model.Usage `json:"total" doc:"the sum of the rows; null when no turn counted"`
}

// UsageRow is one group's usage.
type UsageRow struct {
	Thread    string       `json:"thread,omitempty" doc:"by thread: the thread; by tree: the root thread of the tree"`
	Principal string       `json:"principal,omitempty" doc:"the principal (client:NAME or thread:ROOT) the turns belong to"`
	Day       string       `json:"day,omitempty" doc:"by principal: the UTC day"`
	Threads   int          `json:"threads" doc:"threads whose turns are summed"`
	Usage     *model.Usage `json:"usage" doc:"the tokens of those turns and their estimated cost"`
}
