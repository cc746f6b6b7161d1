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
	return sendFunctionCall(w, n, "", tool, string(argJSON))
}

// FunctionCall makes the model call the tool name with argsJSON, a JSON object ("" means
// {}): the response is a single function_call. A tool that Codex offers inside a namespace
// tool (spawn_agent, say, inside multi_agent_v1) is called with that namespace, without which
// Codex does not find it. Like Shell, served to the follow-up of a call (see
// Request.ToolOutput) it answers with the message "tool finished (fake reply #N)" instead of
// calling again. A request that does not offer the tool, or arguments that are not a JSON
// object, get an HTTP 400 saying so, which fails the turn with that explanation.
func FunctionCall(name, argsJSON string) Behavior {
	if strings.TrimSpace(argsJSON) == "" {
		argsJSON = "{}"
	}
	return Behavior{mode: modeCall, tool: name, args: argsJSON}
}

// callStep turns a FunctionCall behaviour into what this request needs: a message for a
// follow-up, an HTTP 400 for bad arguments or a tool not offered, or the call itself.
func callStep(b Behavior, n int, body map[string]any) Behavior {
	prev, followUp := lastToolOutput(body)
	switch {
	case b.argsFrom != nil && !followUp:
		return badRequest(fmt.Errorf("mode call: %s takes its arguments from a previous tool output, and the request has none", b.tool))
	case b.argsFrom != nil:
		b.args, b.argsFrom = b.argsFrom(prev), nil
	case followUp:
		return Reply(fmt.Sprintf("tool finished (fake reply #%d)", n))
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(b.args), &obj); err != nil || obj == nil {
		return badRequest(fmt.Errorf("mode call: the arguments of %s are not a JSON object: %s", b.tool, b.args))
	}
	if _, ok := b.offeredIn(body); !ok {
		name := b.tool
		if b.namespace != "" {
			name = b.namespace + "." + b.tool
		}
		return badRequest(fmt.Errorf("mode call: the request does not offer the tool %s (it offers %v)", name, toolNames(body)))
	}
	return b
}

// serveFunctionCall streams a response made of one function_call of b's tool.
func serveFunctionCall(w http.ResponseWriter, b Behavior, n int, body map[string]any) (disconnected bool) {
	namespace, _ := b.offeredIn(body)
	return sendFunctionCall(w, n, namespace, b.tool, b.args)
}

// sendFunctionCall streams response.created, the function_call item and response.completed.
// The ids are numbered by n; namespace is left out when empty.
func sendFunctionCall(w http.ResponseWriter, n int, namespace, name, argsJSON string) (disconnected bool) {
	item := map[string]any{
		"type": "function_call", "id": fmt.Sprintf("fc_fake_%d", n), "call_id": fmt.Sprintf("call_fake_%d", n),
		"name": name, "arguments": argsJSON,
	}
	if namespace != "" {
		item["namespace"] = namespace
	}
	respID := fmt.Sprintf("resp_fake_%d", n)
	e := startSSE(w)
	ok := e.send(event{"type": "response.created", "response": map[string]any{"id": respID}}) &&
		e.send(event{"type": "response.output_item.done", "item": item}) &&
		e.send(event{"type": "response.completed", "response": map[string]any{
			"id": respID, "status": "completed", "usage": usage(),
		}})
	return !ok
}

// toolNames lists the names of the tools a request offers; a tool inside a namespace tool
// is listed as namespace.name.
func toolNames(body map[string]any) []string {
	var names []string
	for _, t := range offeredTools(body) {
		if t.namespace != "" {
			names = append(names, t.namespace+"."+t.name)
		} else {
			names = append(names, t.name)
		}
	}
	return names
}

type toolRef struct{ namespace, name string }

// offeredTools lists the tools a request offers, in order, with the members of namespace
// tools ({"type":"namespace","name":…,"tools":[…]}) in place of the namespace itself.
func offeredTools(body map[string]any) []toolRef {
	tools, _ := body["tools"].([]any)
	var out []toolRef
	for _, t := range tools {
		m, _ := t.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			continue
		}
		if typ, _ := m["type"].(string); typ != "namespace" {
			out = append(out, toolRef{name: name})
			continue
		}
		members, _ := m["tools"].([]any)
		for _, mt := range members {
			mm, _ := mt.(map[string]any)
			if member, _ := mm["name"].(string); member != "" {
				out = append(out, toolRef{namespace: name, name: member})
			}
		}
	}
	return out
}

// offeredTool reports whether the request offers the tool name, and in which namespace ("" at
// the top level); the first in the order offered wins.
func offeredTool(body map[string]any, name string) (namespace string, ok bool) {
	for _, t := range offeredTools(body) {
		if t.name == name {
			return t.namespace, true
		}
	}
	return "", false
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
