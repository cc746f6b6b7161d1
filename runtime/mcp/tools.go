package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Runtime is the caller's connection to the runtime: every tool call goes through it, with the
// typed methods of runtime/api, so the runtime's routing table decides what the caller may do.
type Runtime = api.Requester

// Args of the tools. Their JSON names must match the input schemas (Definitions checks).
type (
	taskStartArgs struct {
		HandoffID   string `json:"handoffId,omitempty"`
		Task        string `json:"task,omitempty"`
		ProjectPath string `json:"projectPath,omitempty"`
		Workspace   string `json:"workspace,omitempty"`
		Mode        string `json:"mode,omitempty"`
		TimeoutMs   int64  `json:"timeoutMs,omitempty"`
		Provider    string `json:"provider,omitempty"`
		Approval    string `json:"approval,omitempty"`
	}
	taskStatusArgs struct {
		TaskID string `json:"taskId,omitempty"`
		Limit  int    `json:"limit,omitempty"`
	}
	taskResultArgs struct {
		TaskID         string `json:"taskId,omitempty"`
		Limit          int    `json:"limit,omitempty"`
		IncludeLog     bool   `json:"includeLog,omitempty"`
		IncludeDiff    bool   `json:"includeDiff,omitempty"`
		IncludeHandoff bool   `json:"includeHandoff,omitempty"`
		MaxTextBytes   int    `json:"maxTextBytes,omitempty"`
	}
	// handoffArgs is the handoff object itself; it goes to the runtime as given.
	handoffArgs struct {
		Version            string          `json:"version,omitempty"`
		Title              string          `json:"title"`
		Objective          string          `json:"objective"`
		ProjectPath        string          `json:"projectPath,omitempty"`
		Workspace          string          `json:"workspace,omitempty"`
		Constraints        []string        `json:"constraints"`
		AllowedOperations  []string        `json:"allowedOperations"`
		RiskLevel          string          `json:"riskLevel"`
		TestCommands       []string        `json:"testCommands,omitempty"`
		ExpectedArtifacts  []string        `json:"expectedArtifacts,omitempty"`
		AcceptanceCriteria []string        `json:"acceptanceCriteria,omitempty"`
		SkillContext       []string        `json:"skillContext,omitempty"`
		SkillTask          string          `json:"skillTask,omitempty"`
		SkillRoot          string          `json:"skillRoot,omitempty"`
		MaxSkillContext    *int            `json:"maxSkillContext,omitempty"`
		Notes              json.RawMessage `json:"notes,omitempty"`
	}
)

// Limits the MCP tools add to the runtime's own.
const (
	MaxResultTasks     = 20
	DefaultResultTasks = 1
)

// Definitions is the one table of codexhost's MCP tools, in the order tools/list shows them.
func Definitions() []Definition { return definitions() }

// definitions checks the table and builds its validators on first use: that costs about a
// millisecond, which every command of the binary would otherwise pay at start.
var definitions = sync.OnceValue(func() []Definition { return mustDefinitions(toolTable()...) })

// ToolNames is every tool's name in tools/list order; it builds no validator, so a help text
// can name the tools for nothing.
func ToolNames() []string {
	table := toolTable()
	names := make([]string, len(table))
	for i, d := range table {
		names[i] = d.Name
	}
	return names
}

// toolTable is built on first use too: its schemas are some hundred allocations, which a
// command that never serves MCP would pay at start.
var toolTable = sync.OnceValue(func() []Definition { return toolList() })

func toolList() []Definition {
	return append([]Definition{
		handoffCreateTool(),
		taskStartTool(),
		tool("codex.status", "List running and recent Codex runner tasks (running first, then newest), each with its linked handoff metadata; or one task by taskId. Read-only.",
			true, false,
			object(str("taskId", "one task's id (from codex.task_start); leave out to list", 1, 128),
				integer("limit", "how many tasks to list, 1 to 100", 1, 100, 20)),
			func(ctx context.Context, rt Runtime, a taskStatusArgs) (api.TaskStatusResult, error) {
				return api.TaskStatus.Call(ctx, rt, api.TaskStatusParams(a))
			}),
		tool("codex.result", "Read a task's result: status, changed files, test results, artifacts, policy violations and the linked handoff. Compact by default: set includeLog or includeDiff only when the conversation needs them (each capped to maxTextBytes). Without taskId it reads the newest tasks (limit). Read-only.",
			true, false,
			object(str("taskId", "the task's id; leave out for the newest tasks", 1, 128),
				integer("limit", "without taskId: how many of the newest tasks, 1 to 20", 1, MaxResultTasks, DefaultResultTasks),
				boolean("includeLog", "add the turn's log and the test output", false),
				boolean("includeDiff", "add the diff of the project (git work trees)", false),
				boolean("includeHandoff", "add the full handoff object", false),
				integer("maxTextBytes", "cap of each log or diff text, 200 to 20000 bytes", 200, 20000, 1800)),
			runTaskResult),
		tool("codex.cancel", "Stop a running (or awaiting) task and record who cancelled it. confirm must be true.",
			false, true,
			object(str("taskId", "the task to cancel", 1, 128).req(),
				boolean("confirm", "must be true: cancelling interrupts the Codex turn", false).req()),
			func(ctx context.Context, rt Runtime, a api.TaskCancelParams) (api.TaskInfo, error) {
				return api.TaskCancel.Call(ctx, rt, a)
			}),
		tool("skill.route", "Rank the approved local skills for a task: each recommendation has a deterministic score and the reason. Read one with skill.read before relying on it. Read-only.",
			true, false,
			object(str("task", "what the skills should help with", 1, model.MaxSkillTaskChars).req(),
				str("skillRoot", "an approved skill root (default: the first of handoff.skill_roots)", 1, model.MaxPathChars),
				integer("maxResults", "how many recommendations, 1 to 10", 1, api.MaxSkillResults, api.DefaultSkillResults)),
			func(ctx context.Context, rt Runtime, a api.SkillRouteParams) (api.SkillRouteResult, error) {
				return api.SkillRoute.Call(ctx, rt, a)
			}),
		tool("skill.read", "Read a skill's SKILL.md and activate it: the result has the content (truncated says it was cut at maxBytes) and an activationId; pass that id to skill.bundle to get the files SKILL.md references. Reads only; the activation is recorded.",
			true, false,
			object(str("skill", "the skill's name (from skill.route) or its folder name", 1, 256).req(),
				str("skillRoot", "an approved skill root (default: the first)", 1, model.MaxPathChars),
				integer("maxBytes", "how much of SKILL.md to return, 1000 to 524288 bytes", api.MinSkillReadBytes, api.MaxSkillReadBytes, api.DefaultSkillReadBytes)),
			func(ctx context.Context, rt Runtime, a api.SkillReadParams) (api.SkillReadResult, error) {
				return api.SkillRead.Call(ctx, rt, a)
			}),
		tool("skill.bundle", "Bundle a skill: SKILL.md and the files it references inside its own folder, each with size and sha256 (and content within maxBytes). Referenced files come only with the activationId of a skill.read of this skill; references that leave the skill folder are refused. Read-only.",
			true, false,
			object(str("skill", "the skill's name or folder name", 1, 256).req(),
				str("skillRoot", "an approved skill root (default: the first)", 1, model.MaxPathChars),
				str("activationId", "the activationId skill.read returned for this skill", 1, 64),
				boolean("includeReferences", "include the referenced files (needs activationId)", true),
				integer("maxReferenceFiles", "at most this many referenced files, 0 to 40", 0, api.MaxSkillReferenceFiles, api.DefaultSkillReferences),
				integer("maxBytes", "content bytes in all, 1 to 2097152", 1, api.MaxSkillBundleBytes, api.DefaultSkillBundle)),
			func(ctx context.Context, rt Runtime, a api.SkillBundleParams) (api.SkillBundleResult, error) {
				return api.SkillBundle.Call(ctx, rt, a)
			}),
	}, append(append(compatTools(), threadTools()...), approvalTools()...)...)
}

func handoffCreateTool() Definition {
	return tool("handoff.create", "Validate and persist a handoff: a task package for the local Codex runner (goal, project inside an allowed root, constraints, allowed operations, risk, tests, expected artifacts). Nothing runs: pass the returned handoffId to codex.task_start. With skillTask the approved local skills are routed into skillContext and the handoff records whether each was read (skill.read).",
		false, false,
		object(str("title", "short task label", 1, model.MaxTitleChars).req(),
			str("objective", "the goal, in natural language, for local Codex", 1, model.MaxObjectiveChars).req(),
			str("projectPath", "absolute project directory; must resolve (symlinks followed) inside handoff.allowed_project_roots. Give this or workspace", 1, model.MaxPathChars),
			str("workspace", "a workspace name of [handoff.workspaces], instead of projectPath", 1, model.MaxWorkspaceNameChars),
			strList("constraints", "at least one constraint, e.g. \"Do not commit changes.\"", 1, model.MaxConstraints, model.MaxConstraintChars).req(),
			enumList("allowedOperations", "the capabilities allowed; shell.exec is not one (put commands in testCommands)", 1, len(model.HandoffOperations), model.HandoffOperations...).req(),
			enum("riskLevel", "low: docs, analysis, narrow files; medium: code edits, tests; high: broad refactors, installs, network, releases (waits for the operator). The runtime raises it to what the operations ask", "", model.HandoffRisks...).req(),
			strList("testCommands", "commands codexhost runs after the turn when run_tests is allowed", 0, model.MaxTestCommands, model.MaxTestCommandChars),
			strList("expectedArtifacts", "files expected afterwards, relative to the project", 0, model.MaxArtifacts, model.MaxArtifactChars),
			strList("acceptanceCriteria", "what done means", 0, model.MaxAcceptance, model.MaxAcceptanceChars),
			strList("skillContext", "skill ids or summaries to pass to the runner", 0, model.MaxSkillContextItems, model.MaxSkillContextChars),
			str("skillTask", "task text routed over the approved skills into skillContext", 1, model.MaxSkillTaskChars),
			str("skillRoot", "an approved skill root for skillTask (default: the first)", 1, model.MaxPathChars),
			integer("maxSkillContext", "how many routed skills to keep, 0 to 10", 0, model.MaxSkillContextLimit, model.DefaultSkillContext),
			notesProp(),
			enum("version", "the handoff format version", "1", model.HandoffVersion)),
		func(ctx context.Context, rt Runtime, a handoffArgs) (api.HandoffCreateResult, error) {
			b, err := json.Marshal(a)
			if err != nil {
				return api.HandoffCreateResult{}, err
			}
			return api.HandoffCreate.Call(ctx, rt, api.HandoffCreateParams{Handoff: b})
		})
}

// taskStartTool answers the compact task, or in mode debug the full record.
func taskStartTool() Definition {
	d := tool("codex.task_start", "Start the local Codex runner on a handoff (pass handoffId from handoff.create; the runner prompt is built from the stored handoff), or on the legacy direct fields task with projectPath or workspace (read and write at medium risk). The task runs as a native Codex thread in the approved project root with the sandbox derived from the handoff's operations; a task whose risk (the declared level, raised to what its operations ask: write, create_artifact or test commands make it at least medium) is above [handoff] auto_start_max_risk (default low: only read-only handoffs without test commands start at once), or that is high, waits as awaitingConfirmation until the operator confirms it; the error says why. Returns at once: poll codex.status, then read codex.result.",
		false, false,
		object(str("handoffId", "the id handoff.create returned (handoff_…); or give task with projectPath or workspace instead", 1, 64),
			str("task", "legacy: the task text, when no handoffId is given", 1, model.MaxObjectiveChars),
			str("projectPath", "legacy: absolute project directory inside an allowed project root", 1, model.MaxPathChars),
			str("workspace", "legacy: a workspace name of [handoff.workspaces]", 1, model.MaxWorkspaceNameChars),
			enum("mode", "normal returns the compact task; debug returns the full task record (sandbox, provider, deadline, linked handoff)", "normal", "normal", "debug"),
			integer("timeoutMs", "how long the turn may run before it is interrupted, 1000 to 600000 ms", 1000, 600000, 300000),
			str("provider", "a [handoff.providers.NAME] profile of config.toml to run the task's model on (default: Codex's own provider)", 1, 64),
			enum("approval", "Codex approval policy of the task's thread (default never), allowed up to [handoff] max_approval of config.toml; its requests wait in approvals.list", "", "never", "untrusted", "on-request")),
		runTaskStart)
	d.Output = anyOutput(reflect.TypeFor[startedAnswer](), reflect.TypeFor[api.TaskStartResult]())
	return d
}

func notesProp() prop {
	p := str("notes", "operator-visible notes: a text, or a list of texts", 0, model.MaxNotesChars)
	p.schema.Type, p.schema.Types = "", []string{"string", "array"}
	p.schema.MaxItems = ptr(model.MaxNoteItems)
	p.schema.Items = &jsonschema.Schema{Type: "string", MaxLength: ptr(model.MaxNoteItemChars)}
	return p
}

func runTaskStart(ctx context.Context, rt Runtime, a taskStartArgs) (any, error) {
	if (a.HandoffID == "") == (a.Task == "") {
		return nil, model.Errorf(model.CodeInvalidArgument, "pass handoffId (from handoff.create), or the legacy task with projectPath or workspace", "give exactly one of handoffId and task").WithDetail("field", "handoffId")
	}
	res, err := api.TaskStart.Call(ctx, rt, api.TaskStartParams{HandoffID: a.HandoffID, Task: a.Task, ProjectPath: a.ProjectPath, Workspace: a.Workspace, TimeoutMs: a.TimeoutMs, Provider: a.Provider, Approval: a.Approval})
	if err != nil || a.Mode == "debug" {
		return res, err
	}
	return compactStart(res.Task), nil
}

// startedTask is the compact answer of codex.task_start.
type startedTask struct {
	TaskID    string `json:"taskId"`
	Link      string `json:"link"`
	Status    string `json:"status"`
	HandoffID string `json:"handoffId"`
	RiskLevel string `json:"riskLevel"`
	Sandbox   string `json:"sandbox"`
	TimeoutMs int64  `json:"timeoutMs"`
	Reason    string `json:"reason,omitempty"`
	Next      string `json:"next"`
}

// startedAnswer is codex.task_start's compact answer; mode debug answers api.TaskStartResult.
type startedAnswer struct {
	Task startedTask `json:"task"`
}

func compactStart(t api.TaskInfo) startedAnswer {
	next := "poll codex.status with this taskId until the task ends, then call codex.result"
	if t.Status == model.TaskAwaitingConfirmation {
		next = "the task waits for the operator (its reason says why): ask the operator to confirm it (`codexhost task confirm " + t.TaskID + "`)"
	}
	return startedAnswer{Task: startedTask{TaskID: t.TaskID, Link: t.Link, Status: t.Status, HandoffID: t.HandoffID, RiskLevel: t.RiskLevel,
		Sandbox: t.Sandbox, TimeoutMs: t.TimeoutMs, Reason: t.Reason, Next: next}}
}

// resultsOf is codex.result's answer: one result per task read.
type resultsOf struct {
	Results []api.TaskResult `json:"results"`
}

func runTaskResult(ctx context.Context, rt Runtime, a taskResultArgs) (resultsOf, error) {
	ids := []string{a.TaskID}
	if a.TaskID == "" {
		limit := a.Limit
		if limit == 0 {
			limit = DefaultResultTasks
		}
		st, err := api.TaskStatus.Call(ctx, rt, api.TaskStatusParams{Limit: limit})
		if err != nil {
			return resultsOf{}, err
		}
		ids = ids[:0]
		for _, t := range st.Tasks {
			ids = append(ids, t.TaskID)
		}
	}
	out := resultsOf{Results: []api.TaskResult{}}
	for _, id := range ids {
		p := api.TaskResultParams{TaskID: id, IncludeLog: a.IncludeLog, IncludeDiff: a.IncludeDiff, IncludeHandoff: a.IncludeHandoff, MaxTextBytes: a.MaxTextBytes}
		res, err := api.GetTaskResult.Call(ctx, rt, p)
		if err != nil {
			return resultsOf{}, err
		}
		out.Results = append(out.Results, res)
	}
	return out, nil
}
