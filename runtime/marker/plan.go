package marker

// executionOrder is the order tools run in: creations first so that a thread created in this
// turn can be polled at once, control before snapshots so that polls read the state after a
// cancel or retry.
var executionOrder = []Tool{ToolCreate, ToolCancel, ToolRetry, ToolPoll, ToolWait}

// Plan returns the valid blocks in execution order (create → cancel → retry → poll → wait),
// each tool's blocks in output order.
func Plan(p Parsed) []Block {
	var out []Block
	for _, t := range executionOrder {
		for _, b := range p.Blocks {
			if b.Tool == t && b.Valid() {
				out = append(out, b)
			}
		}
	}
	return out
}
