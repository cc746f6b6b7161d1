package handoff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// riskRank orders the risk levels; an unknown level ranks highest, so it is never trusted.
func riskRank(level string) int {
	if i := slices.Index(model.HandoffRisks, level); i >= 0 {
		return i
	}
	return len(model.HandoffRisks)
}

func maxRisk(a, b string) string {
	if riskRank(a) >= riskRank(b) {
		return a
	}
	return b
}

// RiskFloor is the least risk of what a handoff asks, whatever level it declares: a write
// (write, create_artifact) or test commands codexhost runs (run_tests with commands) are at
// least medium; a declared high asks for the network. The asks are named for the record.
func RiskFloor(h model.Handoff) (string, []string) {
	floor, asks := model.RiskLow, []string{}
	for _, op := range []string{model.OpWrite, model.OpCreateArtifact} {
		if h.Allows(op) {
			floor, asks = model.RiskMedium, append(asks, op)
		}
	}
	if h.Allows(model.OpRunTests) && len(h.TestCommands) > 0 {
		floor, asks = model.RiskMedium, append(asks, fmt.Sprintf("run_tests with %d test command(s)", len(h.TestCommands)))
	}
	if h.RiskLevel == model.RiskHigh {
		floor, asks = model.RiskHigh, append(asks, "the network")
	}
	return floor, asks
}

// Risk is the level a task runs at: the declared one, raised to the floor of what it asks.
type Risk struct {
	Declared  string
	Floor     string
	Effective string
	Asks      []string
}

// AssessRisk assesses a handoff.
func AssessRisk(h model.Handoff) Risk {
	floor, asks := RiskFloor(h)
	return Risk{Declared: h.RiskLevel, Floor: floor, Effective: maxRisk(h.RiskLevel, floor), Asks: asks}
}

// autoStartLimit is the highest risk the caller's start runs at without a confirmation. A
// client holding operator.write may already write to any thread, so its own start of a
// medium task is taken as the operator's; agents and plain clients get the configured limit.
func autoStartLimit(pol config.Handoff, cfg *config.Config, caller api.Caller) string {
	limit := pol.AutoStartMax()
	if caller.Kind == api.CallerClient && cfg != nil && cfg.Grant(caller.Client).Has(config.ScopeWrite) {
		limit = maxRisk(limit, model.RiskMedium)
	}
	if riskRank(limit) >= riskRank(model.RiskHigh) {
		limit = model.RiskMedium // high always waits for the operator's explicit confirmation
	}
	return limit
}

// holdReason says why a start waits for the operator, "" when it starts at once.
func holdReason(r Risk, limit string) string {
	if riskRank(r.Effective) <= riskRank(limit) {
		return ""
	}
	if r.Effective == model.RiskHigh && r.Declared == model.RiskHigh {
		return "high risk needs the operator's confirmation"
	}
	because := "declared risk " + r.Declared
	if riskRank(r.Floor) > riskRank(r.Declared) {
		because += ", raised to " + r.Floor + " by what it asks (" + strings.Join(r.Asks, ", ") + ")"
	}
	return fmt.Sprintf("%s is above [handoff] auto_start_max_risk %s for this caller: it waits for the operator's confirmation", because, limit)
}
