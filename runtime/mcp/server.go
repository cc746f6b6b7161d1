package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// MaxRequestBytes bounds one JSON-RPC message from a client; larger ones are refused before
// they are decoded. A handoff is at most 256 KiB, a tool's arguments far less.
const MaxRequestBytes = 1 << 20

// ServerName is the MCP server's name (and so the mcp__NAME namespace in Codex when it is
// registered under the same name).
const ServerName = "codexhost"

// Options configure a Server.
type Options struct {
	Version string
	// Runtime returns the runtime connection of the caller of req: the stdio server's own
	// connection, or the HTTP caller's.
	Runtime func(ctx context.Context, req *sdk.CallToolRequest) (Runtime, error)
	Logger  *slog.Logger
}

// NewServer builds the MCP server with every tool of Definitions under its name and alias.
func NewServer(opts Options) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "codexhost", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: "codexhost runs coding tasks with the local Codex runner. Describe the task with handoff.create, start it with codex.task_start, " +
			"poll codex.status and read codex.result. Route and read approved local skills with skill.route, skill.read and skill.bundle.",
		Logger:       opts.Logger,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, d := range definitions() {
		for _, name := range d.Names() {
			s.AddTool(d.tool(name), handler(d, opts))
		}
	}
	return s
}

func (d Definition) tool(name string) *sdk.Tool {
	desc := d.Description
	if name != d.Name {
		desc = "Alias of " + d.Name + ". " + desc
	}
	ann := &sdk.ToolAnnotations{ReadOnlyHint: d.ReadOnly, Title: d.Name}
	if !d.ReadOnly {
		ann.DestructiveHint = &d.Destructive
	}
	closed := false
	ann.OpenWorldHint = &closed
	return &sdk.Tool{Name: name, Description: desc, InputSchema: d.Schema, OutputSchema: d.Output, Annotations: ann}
}

// handler validates the arguments, makes the runtime calls as the caller and turns the
// outcome into a tool result; every failure is a result with isError, never a protocol error.
func handler(d Definition, opts Options) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		raw := req.Params.Arguments
		if len(raw) > MaxRequestBytes {
			return errorResult(model.Errorf(model.CodeInvalidArgument, "keep a tool call under 1 MiB", "the arguments are %d bytes", len(raw))), nil
		}
		if err := d.validator.validate(raw); err != nil {
			return errorResult(err), nil
		}
		rt, err := opts.Runtime(ctx, req)
		if err != nil {
			return errorResult(err), nil
		}
		res, err := d.run(ctx, rt, raw)
		if err != nil {
			if ctx.Err() != nil && !model.IsCode(err, model.CodeInvalidArgument) {
				err = model.Errorf(model.CodeRuntimeUnreachable, "the call was cancelled; check with codex.status whether it took effect", "%s cancelled: %v", d.Name, ctx.Err())
			}
			return errorResult(err), nil
		}
		b, err := json.Marshal(api.AgentDocument(res))
		if err != nil {
			return errorResult(err), nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: render(d.Name, res, b)}}, StructuredContent: json.RawMessage(b)}, nil
	}
}

// errorResult is a failed call as the client sees it: isError, the error's code, message and
// hint in one line of text, then the error document {"error":{...}} as a second text item.
// It carries no structuredContent: clients check that against the tool's outputSchema even
// on errors, and an error document there would fail the check and hide the error.
func errorResult(err error) *sdk.CallToolResult {
	var me *model.Error
	if !errors.As(err, &me) {
		me = model.AsError(err)
	}
	text := fmt.Sprintf("%s: %s", me.Code, me.Message)
	if me.Hint != "" {
		text += "\nhint: " + me.Hint
	}
	b, mErr := json.Marshal(map[string]any{"error": me})
	if mErr != nil {
		b, _ = json.Marshal(map[string]any{"error": model.Error{Code: me.Code, Message: me.Message, Hint: me.Hint}})
	}
	// The line ends: Codex joins the text items with nothing between them.
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text + "\n"}, &sdk.TextContent{Text: string(b)}}}
}
