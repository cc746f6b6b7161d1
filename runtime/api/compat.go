package api

import "github.com/codexhost/codexhost/model"

// Compat tools: the five agent-facing tools kept from the legacy supervisor, served over the
// catalog's local hosts ("endpoints"). Policy: the runtime's [supervision] table for agents
// (runtime token), the client's flags and operator scopes for external clients. They never
// start or resume a thread: send only steers a running turn and interrupt only stops one.
const (
	MethodCompatEndpointProbe    = "compat.endpointProbe"
	MethodCompatSessionsList     = "compat.sessionsList"
	MethodCompatSessionRead      = "compat.sessionRead"
	MethodCompatSessionSend      = "compat.sessionSend"
	MethodCompatSessionInterrupt = "compat.sessionInterrupt"
)

// IsCompatMethod reports whether method is one of the compat tools.
func IsCompatMethod(method string) bool {
	switch method {
	case MethodCompatEndpointProbe, MethodCompatSessionsList, MethodCompatSessionRead, MethodCompatSessionSend, MethodCompatSessionInterrupt:
		return true
	}
	return false
}

// Modes of compat session send. Start is named so that asking for it is refused, not ignored.
const (
	CompatModeAuto  = "auto"  // the default: steer the running turn
	CompatModeSteer = "steer" // the same, said explicitly
	CompatModeStart = "start" // always refused: compat send never starts or resumes a thread
)

// CompatProbeParams probes one endpoint, or every one.
type CompatProbeParams struct {
	Endpoint string `json:"endpoint,omitempty"`
}

// CompatEndpoint is the outcome of probing one endpoint. A failed endpoint has Error.
type CompatEndpoint struct {
	Endpoint       string       `json:"endpoint"`
	Default        bool         `json:"default,omitempty"`
	OK             bool         `json:"ok"`
	CodexVersion   string       `json:"codexVersion,omitempty"`
	LoadedSessions *int         `json:"loadedSessions,omitempty"`
	Error          *model.Error `json:"error,omitempty"`
}

// CompatProbeResult lists the endpoints, the default local one first.
type CompatProbeResult struct {
	Endpoints []CompatEndpoint `json:"endpoints"`
}

// CompatSessionsListParams lists the sessions loaded in each endpoint's App Server; with
// IncludeStored also unarchived stored ones, at most MaxStoredSessions (1..1000; default the
// configured cap) per endpoint. There is deliberately no loaded_only: loaded only is the
// default.
type CompatSessionsListParams struct {
	Endpoint          string `json:"endpoint,omitempty"`
	IncludeStored     bool   `json:"include_stored,omitempty"`
	MaxStoredSessions *int   `json:"max_stored_sessions,omitempty"`
}

// CompatSession is a catalog row with where it came from. Preview is derived from the
// transcript (the first user message) and is served only with allowRawTranscripts.
type CompatSession struct {
	CatalogSession
	Loaded  bool   `json:"loaded"`
	Preview string `json:"preview,omitempty"`
}

// CompatEndpointSessions is one endpoint's list: loaded rows first (never capped), then
// stored rows, newest first. StoredTruncated says the cap stopped the stored rows before the
// end. A failed endpoint has Error and no sessions.
type CompatEndpointSessions struct {
	Endpoint        string          `json:"endpoint"`
	Sessions        []CompatSession `json:"sessions"`
	StoredCap       int             `json:"storedCap,omitempty"`
	StoredTruncated bool            `json:"storedTruncated,omitempty"`
	Error           *model.Error    `json:"error,omitempty"`
}

// CompatSessionsListResult groups the lists by endpoint. RawTranscripts says whether
// transcript-derived fields were allowed (and so served) for this caller.
type CompatSessionsListResult struct {
	Endpoints      []CompatEndpointSessions `json:"endpoints"`
	RawTranscripts bool                     `json:"rawTranscripts"`
}

// CompatSessionReadParams reads a session and one page of its turns (the newest without a
// cursor). Needs allowRawTranscripts.
type CompatSessionReadParams struct {
	Endpoint string `json:"endpoint,omitempty"`
	Thread   string `json:"thread"`
	Cursor   string `json:"cursor,omitempty"`
}

// CompatSessionReadResult is the session, its running turn (when the page shows one) and a
// page of turns, oldest first, with cursors to the neighbouring pages.
type CompatSessionReadResult struct {
	Endpoint     string        `json:"endpoint"`
	Session      CompatSession `json:"session"`
	ActiveTurnID string        `json:"activeTurnId,omitempty"`
	Turns        []CatalogTurn `json:"turns"`
	OlderCursor  string        `json:"olderCursor,omitempty"`
	NewerCursor  string        `json:"newerCursor,omitempty"`
}

// CompatSessionSendParams adds a message to the session's running turn (turn/steer).
// ExpectedTurnID, when given, must be that turn.
type CompatSessionSendParams struct {
	Endpoint       string `json:"endpoint,omitempty"`
	Thread         string `json:"thread"`
	Message        string `json:"message"`
	Mode           string `json:"mode,omitempty"`
	ExpectedTurnID string `json:"expected_turn_id,omitempty"`
}

// CompatSessionSendResult names the steered turn.
type CompatSessionSendResult struct {
	Endpoint string `json:"endpoint"`
	Thread   string `json:"thread"`
	TurnID   string `json:"turnId"`
	Steered  bool   `json:"steered"`
}

// CompatSessionInterruptParams interrupts the session's running turn.
type CompatSessionInterruptParams struct {
	Endpoint       string `json:"endpoint,omitempty"`
	Thread         string `json:"thread"`
	ExpectedTurnID string `json:"expected_turn_id,omitempty"`
}

// CompatSessionInterruptResult names the interrupted turn; Codex accepted the interrupt and
// ends the turn as interrupted.
type CompatSessionInterruptResult struct {
	Endpoint    string `json:"endpoint"`
	Thread      string `json:"thread"`
	TurnID      string `json:"turnId"`
	Interrupted bool   `json:"interrupted"`
}
