// Command markertool is a stdio MCP server for tests: its one tool, write_marker, appends its
// text to the file named by the first argument. The tool is neither read-only nor declared
// harmless, so Codex asks before it runs unless its config approves it.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type markerArgs struct {
	Text string `json:"text" jsonschema:"the text to write"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: markertool FILE")
		os.Exit(2)
	}
	file := os.Args[1]
	s := mcp.NewServer(&mcp.Implementation{Name: "markertool", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "write_marker", Description: "Write a marker file."},
		func(_ context.Context, _ *mcp.CallToolRequest, a markerArgs) (*mcp.CallToolResult, any, error) {
			f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			if _, err := fmt.Fprintln(f, a.Text); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "marker written: " + a.Text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
