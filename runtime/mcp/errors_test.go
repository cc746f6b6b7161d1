package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/model"
)

// Clients validate a result's structuredContent against the tool's outputSchema whether or
// not isError is set (the MCP Inspector does): an error document there failed that check, so
// the client showed "must have required property ..." and hid the code, message and hint. A
// failed call now carries no structuredContent; its error document is the last text item.
func TestToolErrorsKeepStructuredContentToTheOutputSchema(t *testing.T) {
	t.Parallel()
	f := startMCP(t)
	cs, err := f.session(t, botToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerDeadline)
	defer cancel()
	schemas := outputSchemas(ctx, t, cs)
	calls := []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"thread.read", map[string]any{}, "thread"},                // refused by the input schema
		{"thread.list", map[string]any{"limit": "x"}, "limit"},     // a wrong type
		{"thread.read", map[string]any{"thread": "not-an-id"}, ""}, // refused by the runtime
		{"codex.cancel", map[string]any{"taskId": "t", "confirm": 1}, "confirm"},
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || !res.IsError {
			t.Fatalf("%s %v: %v %+v, want a tool error", c.tool, c.args, err, res)
		}
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			var v any
			_ = json.Unmarshal(b, &v)
			if err := schemas[c.tool].Validate(v); err != nil {
				t.Errorf("%s %v: structuredContent %s does not match the outputSchema: %v", c.tool, c.args, b, err)
			}
		}
		var doc struct {
			Error model.Error `json:"error"`
		}
		last, _ := res.Content[len(res.Content)-1].(*sdk.TextContent)
		if last == nil || json.Unmarshal([]byte(last.Text), &doc) != nil || doc.Error.Code != model.CodeInvalidArgument || doc.Error.Hint == "" {
			t.Errorf("%s %v: no error document in the content: %+v", c.tool, c.args, res.Content)
		} else if c.field != "" && doc.Error.Details["field"] != c.field {
			t.Errorf("%s %v: details %v, want field %s", c.tool, c.args, doc.Error.Details, c.field)
		}
	}
}

// Codex hands a tool's text items to the model joined with nothing between them: the one-line
// error must end its line, or the model reads "…its own delegation tree{"error":…}".
func TestToolErrorTextEndsItsLineBeforeTheErrorDocument(t *testing.T) {
	t.Parallel()
	res := errorResult(model.Errorf(model.CodePermissionDenied, "a hint", "refused"))
	var joined string
	for _, c := range res.Content {
		joined += c.(*sdk.TextContent).Text
	}
	if want := "PERMISSION_DENIED: refused\nhint: a hint\n{\"error\":"; len(joined) < len(want) || joined[:len(want)] != want {
		t.Fatalf("the model reads %q", joined)
	}
}
