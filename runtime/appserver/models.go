package appserver

import "context"

// MethodModelList lists the models the App Server offers (its bundled catalog; no network).
const MethodModelList = "model/list"

// ModelListParams pages the catalog.
type ModelListParams struct {
	Cursor        string `json:"cursor,omitempty"`
	Limit         int    `json:"limit,omitempty"`
	IncludeHidden bool   `json:"includeHidden,omitempty"`
}

// ReasoningEffortOption is one thinking option of a model.
type ReasoningEffortOption struct {
	ReasoningEffort string `json:"reasoningEffort"`
	Description     string `json:"description"`
}

// ModelInfo is one model of the catalog (the fields codexhost reports).
type ModelInfo struct {
	ID                        string                  `json:"id"`
	Model                     string                  `json:"model"`
	DisplayName               string                  `json:"displayName"`
	Description               string                  `json:"description"`
	Hidden                    bool                    `json:"hidden"`
	SupportedReasoningEfforts []ReasoningEffortOption `json:"supportedReasoningEfforts"`
	DefaultReasoningEffort    string                  `json:"defaultReasoningEffort"`
	IsDefault                 bool                    `json:"isDefault"`
}

// ModelListResult is one page of the catalog.
type ModelListResult struct {
	Data       []ModelInfo `json:"data"`
	NextCursor *string     `json:"nextCursor"`
}

// ModelList lists one page of models.
func (m Calls) ModelList(ctx context.Context, p ModelListParams) (ModelListResult, error) {
	var r ModelListResult
	err := m.c.Call(ctx, MethodModelList, p, &r)
	return r, err
}

// maxModelPages bounds the walk over a catalog that would keep returning cursors.
const maxModelPages = 20

// AllModels walks every page of the catalog.
func (m Calls) AllModels(ctx context.Context) ([]ModelInfo, error) {
	var out []ModelInfo
	cursor := ""
	for range maxModelPages {
		page, err := m.ModelList(ctx, ModelListParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		out = append(out, page.Data...)
		if page.NextCursor == nil || *page.NextCursor == "" {
			return out, nil
		}
		cursor = *page.NextCursor
	}
	return out, nil
}
