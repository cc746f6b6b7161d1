package api

import (
	"encoding/json"

	"github.com/codexhost/codexhost/model"
)

// Event is one change pushed to subscribers.
type Event struct {
	Type       string `json:"type"` // "thread.status"
	Thread     string `json:"thread"`
	Status     string `json:"status,omitempty"`
	TurnID     string `json:"turnId,omitempty"`
	TurnStatus string `json:"turnStatus,omitempty"`
	// Request is set on the events of one call (see Notify): the JSON-RPC id of that call.
	// They go only to the connection that made it, subscribed or not, before its answer.
	Request json.RawMessage `json:"request,omitempty"`
	// Catalog is one host's page of a catalog.sessions call that asked for progress.
	Catalog *CatalogHostSessions `json:"catalog,omitempty"`
	// Install is a line of npm's output of a codex.install call that asked for progress.
	Install *CodexInstallProgress `json:"install,omitempty"`
	// Delta is the text fragment of a thread.delta event (delta.go).
	Delta *ThreadDelta `json:"delta,omitempty"`
	// Approval is the record of an approval.changed event.
	Approval *model.Approval `json:"approval,omitempty"`
	// Usage is the thread's new total of a thread.usage event (numbers only).
	Usage *model.Usage `json:"usage,omitempty"`
}

// Event types.
const (
	EventThreadStatus   = "thread.status"
	EventThreadProgress = "thread.progress" // a message of the running turn completed
	EventClientLog      = "client.event"    // Thread holds the client's name
	EventCatalogHost    = "catalog.host"    // a host of a catalog.sessions call settled (Catalog)
	EventThreadUsage    = "thread.usage"    // a thread reported token usage (Usage: its new total)
)
