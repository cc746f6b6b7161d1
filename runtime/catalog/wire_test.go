package catalog

import "github.com/codexhost/codexhost/runtime/appserver"

// turnsParams is thread/turns/list as a test reads the catalog's calls.
type turnsParams = appserver.TurnsListParams

// listParams is thread/list as a test sends it, with every field the catalog may send.
type listParams struct {
	Cursor           string   `json:"cursor,omitempty"`
	Limit            int      `json:"limit"`
	Archived         bool     `json:"archived"`
	UseStateDBOnly   bool     `json:"useStateDbOnly"`
	AncestorThreadID string   `json:"ancestorThreadId,omitempty"`
	SourceKinds      []string `json:"sourceKinds,omitempty"`
}
