package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/handoff"
)

func newTaskCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Start, check on, confirm and cancel handoff tasks run by the Codex runner",
		Long: "A task is a native Codex thread that carries out a handoff inside its approved project root, in a sandbox " +
			"derived from the handoff's allowed operations; its id is the thread's id. A task's risk is its declared level " +
			"raised to what it asks (write, create_artifact or test commands: at least medium); above [handoff] " +
			"auto_start_max_risk (default low) or high, it waits for the operator's confirmation. Test commands run " +
			"inside bubblewrap: the project directory the only writable place (none for a read-only task) besides a private " +
			"temporary directory, " + handoff.ScratchDir + ", that TMPDIR, GOTMPDIR, GOCACHE and XDG_CACHE_HOME point into " +
			"(shared by the task's test commands, removed after the last); the codexhost and Codex homes hidden. A task " +
			"awaiting confirmation when the runtime restarts stays confirmable: Codex kept no thread without a turn, so " +
			"`task confirm` runs it in a new thread, as a task whose replaces names the old one (which reads interrupted, " +
			"with replacedBy).",
	}
	cmd.AddCommand(newTaskStartCmd(), newTaskStatusCmd(), newTaskResultCmd(), newTaskCancelCmd(), newTaskConfirmCmd())
	return cmd
}

func printTask(w io.Writer, t api.TaskInfo) {
	fmt.Fprintf(w, "%s  %s  risk %s  sandbox %s", t.TaskID, t.Status, t.RiskLevel, t.Sandbox)
	if t.Network {
		fmt.Fprint(w, " +network")
	}
	fmt.Fprintf(w, "\n  handoff %s  operations %s  root %s\n", t.HandoffID, strings.Join(t.Operations, ","), t.Root)
	if t.Reason != "" {
		fmt.Fprintf(w, "  %s\n", t.Reason)
	}
}

func newTaskStartCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 60000, timeoutMsTaken: true}
	var p api.TaskStartParams
	cmd := &cobra.Command{
		Use:   "start (--handoff ID | --task TEXT (--project-path P | --workspace W)) [--confirm-high-risk] [--timeout-ms N] [--provider NAME] [--approval POLICY] [--json]",
		Short: "Start a task from a handoff (or from a task text, which gets read and write at medium risk)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := operatorCall(&o, cmd, api.TaskStart, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printTask(w, res.Task) })
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&p.HandoffID, "handoff", "", "the handoff to run")
	f.StringVar(&p.Task, "task", "", "a task text, for a start without a handoff")
	f.StringVar(&p.ProjectPath, "project-path", "", "the project directory of --task")
	f.StringVar(&p.Workspace, "workspace", "", "the workspace of --task")
	f.BoolVar(&p.ConfirmHighRisk, "confirm-high-risk", false, "confirm a task that would wait for the operator (operator only; grants a high-risk one the network)")
	f.Int64Var(&p.TimeoutMs, "timeout-ms", 0, "interrupt the turn after this many ms, 1000 to 600000 (default 300000)")
	f.StringVar(&p.Provider, "provider", "", "a [handoff.providers] profile")
	f.StringVar(&p.Approval, "approval", "", "`POLICY`: Codex approval policy of the task's thread: never (default), untrusted or on-request, at most [handoff] max_approval; its requests wait in `codexhost approvals`")
	return cmd
}

func newTaskStatusCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.TaskStatusParams
	var tf tableFlags
	cmd := &cobra.Command{
		Use:   "status [ID] [--limit N] [--json]",
		Short: "Show a task, or list running and recent tasks",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := tf.check(); err != nil {
				return err
			}
			if len(args) == 1 {
				p.TaskID = args[0]
			}
			res, err := operatorCall(&o, cmd, api.TaskStatus, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { tf.show(cmd, w, opview.Tasks(res.Tasks), "") })
		},
	}
	o.register(cmd)
	tf.register(cmd, opview.TaskColumns)
	cmd.Flags().IntVar(&p.Limit, "limit", 20, "how many, 1 to 100")
	return cmd
}

func newTaskResultCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.TaskResultParams
	cmd := &cobra.Command{
		Use:   "result ID [--include-log] [--include-diff] [--include-handoff] [--max-text-bytes N] [--json]",
		Short: "Show a task's result: changed files, tests, artifacts, violations",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.TaskID = args[0]
			res, err := operatorCall(&o, cmd, api.GetTaskResult, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printTaskResult(w, res) })
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&p.IncludeLog, "include-log", false, "add the thread's messages, the trace and test output")
	f.BoolVar(&p.IncludeDiff, "include-diff", false, "add the diff (git work trees; never of denied files)")
	f.BoolVar(&p.IncludeHandoff, "include-handoff", false, "add the handoff itself")
	f.IntVar(&p.MaxTextBytes, "max-text-bytes", 0, "cap of the log and the diff, 200 to 20000 (default 1800)")
	return cmd
}

func printTaskResult(w io.Writer, res api.TaskResult) {
	printTask(w, res.Task)
	for _, c := range res.ChangedFiles {
		line := "  " + c.Change + " " + c.Path
		if c.DeniedBy != "" {
			line += "  VIOLATION (" + c.DeniedBy + ")"
		}
		fmt.Fprintln(w, line)
	}
	for _, t := range res.Tests {
		fmt.Fprintf(w, "  test exit %d  %s\n", t.ExitCode, t.Command)
	}
	for _, a := range res.Artifacts {
		fmt.Fprintf(w, "  artifact %s  exists=%v %s\n", a.Path, a.Exists, a.Reason)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if res.Log != "" {
		fmt.Fprintf(w, "\n%s\n", res.Log)
	}
	if res.Diff != "" {
		fmt.Fprintf(w, "\n%s\n", res.Diff)
	}
}

func newTaskCancelCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 60000}
	var p api.TaskCancelParams
	cmd := &cobra.Command{
		Use:   "cancel ID --confirm [--json]",
		Short: "Cancel a task: interrupt its turn, or drop it before confirmation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.TaskID = args[0]
			res, err := operatorCall(&o, cmd, api.TaskCancel, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printTask(w, res) })
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&p.Confirm, "confirm", false, "confirm the cancel")
	return cmd
}

func newTaskConfirmCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 60000}
	cmd := &cobra.Command{
		Use:   "confirm ID [--json]",
		Short: "Confirm an awaiting task (operator only): its turn starts, a high-risk one with the network",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := operatorCall(&o, cmd, api.TaskConfirm, api.TaskConfirmParams{TaskID: args[0]})
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printTask(w, res.Task) })
		},
	}
	o.register(cmd)
	return cmd
}
