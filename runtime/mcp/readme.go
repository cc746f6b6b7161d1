package mcp

import (
	"fmt"
	"strings"
)

// Markers of the generated tool list in the README.
const (
	ReadmeBegin = "<!-- mcp-tools:begin (generated from runtime/mcp's definitions; a test fails on drift) -->"
	ReadmeEnd   = "<!-- mcp-tools:end -->"
)

// ToolsMarkdown is the README's table of the tools, generated from the registrations.
func ToolsMarkdown() string {
	var b strings.Builder
	b.WriteString("| tool | alias | read-only | arguments |\n| --- | --- | --- | --- |\n")
	for _, d := range definitions() {
		alias := d.Alias
		if alias == "" {
			alias = "—"
		}
		ro := "no"
		if d.ReadOnly {
			ro = "yes"
		}
		var args []string
		for _, name := range d.validator.names {
			arg := "`" + name + "`"
			for _, r := range d.Schema.Required {
				if r == name {
					arg += "*"
				}
			}
			args = append(args, arg)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Name, wrapCode(alias), ro, strings.Join(args, " "))
	}
	b.WriteString("\n`*` required. Each tool's description and limits are in its input schema (`tools/list`).\n")
	return b.String()
}

func wrapCode(s string) string {
	if s == "—" {
		return s
	}
	return "`" + s + "`"
}
