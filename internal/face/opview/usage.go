package opview

import (
	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// UsageColumns are the columns of `codexhost usage`.
var UsageColumns = []table.Column{{Name: "Group"}, {Name: "Principal", Fit: true, Drop: 2}, {Name: "Threads", Drop: 3}, {Name: "Turns", Drop: 4},
	{Name: "Input"}, {Name: "Cached", Drop: 5}, {Name: "Output"}, {Name: "Reasoning", Drop: 6}, {Name: "Total"}, {Name: "Cost (est.)", Drop: 1}}

// Usage is a usage summary's rows, then its total.
func Usage(res api.UsageSummaryResult) table.Table {
	t := table.Table{Columns: UsageColumns, Empty: "no usage recorded"}
	for _, r := range res.Rows {
		group := r.Thread
		if res.By == api.UsageByPrincipal {
			group = r.Day
		}
		t.Rows = append(t.Rows, usageRow(group, r.Principal, r.Threads, r.Usage))
	}
	if res.Total != nil && len(res.Rows) > 1 {
		t.Rows = append(t.Rows, usageRow("total", "", 0, res.Total))
	}
	return t
}

func usageRow(group, principal string, threads int, u *model.Usage) []table.Cell {
	if u == nil {
		u = &model.Usage{}
	}
	cost := table.Styled(model.CostText(u), table.Muted)
	if cost.Text == "" {
		cost = table.Styled("no price", table.Muted)
	}
	th := table.Int(int64(threads))
	if threads == 0 {
		th = table.Text("")
	}
	return []table.Cell{table.Text(group), table.Text(principal), th, table.Int(int64(u.Turns)),
		table.Int(u.Input), table.Int(u.CachedInput), table.Int(u.Output), table.Int(u.Reasoning), table.Int(u.Total), cost}
}
