package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// DefaultShellCommand is what a Shell behaviour without a command runs.
const DefaultShellCommand = "echo hi-from-fake-tool"

// shellYieldMs is how long exec_command may wait for the command to exit before it returns
// partial output; generous, so that a command's whole output reaches the follow-up request.
const shellYieldMs = 10000

// shellTools are the shell tools Codex may offer, most preferred first. Which one it offers
// depends on the model slug and the Codex version.
var shellTools = []string{"exec_command", "shell_command", "shell"}

// Shell makes the model run command through the shell tool the request offers (exec_command,
// shell_command or shell, in that order): the response is a single function_call. Codex runs
// the command and sends a follow-up request whose input ends with the function_call_output
// (see Request.ToolOutput). Served to such a follow-up, Shell answers with the message
// "tool finished (fake reply #N)" instead of calling the tool again, so a [[mode:shell]]
// marker, which still decides the follow-up, does not loop. An empty command runs
// DefaultShellCommand. A request that offers no shell tool gets an HTTP 400 naming the tools
// it offered, which fails the turn with that explanation.
func Shell(command string) Behavior {
	if command == "" {
		command = DefaultShellCommand
	}
	return Behavior{mode: modeShell, command: command}
}

// shellStep turns a Shell behaviour into what this request needs: a message for a follow-up,
// an HTTP 400 when no shell tool is offered, or the call itself (b unchanged).
func shellStep(b Behavior, n int, body map[string]any) Behavior {
	if _, ok := lastToolOutput(body); ok {
		return Reply(fmt.Sprintf("tool finished (fake reply #%d)", n))
	}
	if _, ok := offeredShellTool(body); !ok {
		return badRequest(fmt.Errorf("mode shell: the request offers none of the shell tools %v (it offers %v)", shellTools, toolNames(body)))
	}
	return b
}

// serveShellCall streams a response made of one function_call of the offered shell tool.
func serveShellCall(w http.ResponseWriter, b Behavior, n int, body map[string]any) (disconnected bool) {
	tool, _ := offeredShellTool(body)
	var args any
	switch tool {
	case "exec_command":
		args = map[string]any{"cmd": b.command, "yield_time_ms": shellYieldMs}
	case "shell_command":
		args = map[string]any{"command": b.command}
	default:
		args = map[string]any{"command": []string{"bash", "-lc", b.command}}
	}
	argJSON, err := json.Marshal(args)
	if err != nil {
		panic(err) // built here from plain values
	}
	respID := fmt.Sprintf("resp_fake_%d", n)
	e := startSSE(w)
	ok := e.send(event{"type": "response.created", "response": map[string]any{"id": respID}}) &&
		e.send(event{"type": "response.output_item.done", "item": map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_fake_%d", n), "call_id": fmt.Sprintf("call_fake_%d", n),
			"name": tool, "arguments": string(argJSON),
		}}) &&
		e.send(event{"type": "response.completed", "response": map[string]any{
			"id": respID, "status": "completed", "usage": usage(),
		}})
	return !ok
}

// toolNames lists the names of the tools a request offers.
func toolNames(body map[string]any) []string {
	tools, _ := body["tools"].([]any)
	var names []string
	for _, t := range tools {
		if m, ok := t.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				names = append(names, name)
			}
		}
	}
	return names
}

func offeredShellTool(body map[string]any) (string, bool) {
	names := toolNames(body)
	for _, tool := range shellTools {
		if slices.Contains(names, tool) {
			return tool, true
		}
	}
	return "", false
}

// ToolOutput returns what the tool reported when this request is the follow-up of a tool
// call, that is when its input ends with a function_call_output or custom_tool_call_output
// item; for exec_command that is Codex's header (exit code, wall time) followed by the
// command's combined stdout and stderr. ok is false for any other request.
func (r Request) ToolOutput() (output string, ok bool) {
	return lastToolOutput(r.JSON)
}

func lastToolOutput(body map[string]any) (string, bool) {
	input, _ := body["input"].([]any)
	if len(input) == 0 {
		return "", false
	}
	last, _ := input[len(input)-1].(map[string]any)
	if typ, _ := last["type"].(string); typ != "function_call_output" && typ != "custom_tool_call_output" {
		return "", false
	}
	// The output is a string, or a list of content parts.
	switch out := last["output"].(type) {
	case string:
		return out, true
	case []any:
		var b strings.Builder
		for _, part := range out {
			if m, ok := part.(map[string]any); ok {
				if text, ok := m["text"].(string); ok {
					b.WriteString(text)
				}
			}
		}
		return b.String(), true
	}
	return "", true
}
