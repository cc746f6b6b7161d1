package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func newHandoffCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "handoff",
		Short: "Create, list and show handoffs: validated task packages run by the Codex runner",
		Long: "A handoff describes a goal and its limits (project root, constraints, allowed operations, risk, tests, " +
			"expected artifacts). codexhost validates it against the [handoff] policy of config.toml and persists it; " +
			"`codexhost task start --handoff ID` runs it.",
	}
	cmd.AddCommand(newHandoffCreateCmd(), newHandoffListCmd(), newHandoffShowCmd())
	return cmd
}

// handoffFlags are the handoff fields as flags, for a create without --file.
type handoffFlags struct {
	file, title, objective, projectPath, workspace, risk, skillTask, skillRoot, notes string
	constraints, operations, tests, artifacts, criteria, skillContext                 []string
	maxSkill                                                                          int
}

func (f *handoffFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.file, "file", "", "the handoff as a JSON file (- reads stdin); the other field flags are then not allowed")
	fl.StringVar(&f.title, "title", "", "short task label (1-160 characters)")
	fl.StringVar(&f.objective, "objective", "", "the goal (1-12000 characters)")
	fl.StringVar(&f.projectPath, "project-path", "", "absolute project directory inside an allowed project root")
	fl.StringVar(&f.workspace, "workspace", "", "a workspace name of [handoff.workspaces]")
	fl.StringVar(&f.risk, "risk", "", "low, medium or high")
	fl.StringArrayVar(&f.constraints, "constraint", nil, "a constraint (repeat; 1-20)")
	fl.StringArrayVar(&f.operations, "operation", nil, "an allowed operation: read, write, run_tests, inspect_git, create_artifact, use_skill_context (repeat)")
	fl.StringArrayVar(&f.tests, "test-command", nil, "a test command codexhost runs after the turn when run_tests is allowed (repeat; at most 10)")
	fl.StringArrayVar(&f.artifacts, "artifact", nil, "an expected artifact, relative to the project (repeat; at most 30)")
	fl.StringArrayVar(&f.criteria, "acceptance", nil, "an acceptance criterion (repeat; at most 20)")
	fl.StringArrayVar(&f.skillContext, "skill-context", nil, "a skill id or summary (repeat; at most 20)")
	fl.StringVar(&f.skillTask, "skill-task", "", "task text routed over the approved skill roots")
	fl.StringVar(&f.skillRoot, "skill-root", "", "an approved skill root (default: the first)")
	fl.IntVar(&f.maxSkill, "max-skill-context", model.DefaultSkillContext, "how many routed skills to keep, 0-10")
	fl.StringVar(&f.notes, "notes", "", "operator-visible notes")
}

// raw is the handoff JSON: the file as it is, or the flags as fields. The runtime validates.
func (f *handoffFlags) raw(cmd *cobra.Command) (json.RawMessage, error) {
	if f.file != "" {
		if cmd.Flags().NFlag() > 1+countSet(cmd, "json", "client-token", "endpoint", "timeout", "timeout-ms") {
			return nil, model.Errorf(model.CodeInvalidArgument, "give --file alone, or the field flags without --file", "--file and field flags are exclusive")
		}
		b, err := readHandoffFile(f.file, cmd.InOrStdin())
		if err != nil {
			return nil, err
		}
		return model.JSONDocument(f.file, b)
	}
	m := map[string]any{}
	set := func(k string, v any, ok bool) {
		if ok {
			m[k] = v
		}
	}
	set("title", f.title, f.title != "")
	set("objective", f.objective, f.objective != "")
	set("projectPath", f.projectPath, f.projectPath != "")
	set("workspace", f.workspace, f.workspace != "")
	set("riskLevel", f.risk, f.risk != "")
	set("constraints", f.constraints, f.constraints != nil)
	set("allowedOperations", f.operations, f.operations != nil)
	set("testCommands", f.tests, f.tests != nil)
	set("expectedArtifacts", f.artifacts, f.artifacts != nil)
	set("acceptanceCriteria", f.criteria, f.criteria != nil)
	set("skillContext", f.skillContext, f.skillContext != nil)
	set("skillTask", f.skillTask, f.skillTask != "")
	set("skillRoot", f.skillRoot, f.skillRoot != "")
	set("maxSkillContext", f.maxSkill, true)
	set("notes", f.notes, f.notes != "")
	return json.Marshal(m)
}

// readHandoffFile reads --file (- is stdin) up to one byte past the handoff limit: a device,
// a FIFO or a log named by mistake neither fills memory nor waits for an end, and a handoff
// too big is told so rather than cut into invalid JSON.
func readHandoffFile(name string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, model.Errorf(model.CodeInvalidArgument, "give a readable JSON file", "read %s: %v", name, err)
		}
		defer fh.Close()
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, model.MaxHandoffBytes+1))
	if err != nil {
		return nil, model.Errorf(model.CodeInvalidArgument, "give a readable JSON file", "read %s: %v", name, err)
	}
	if len(b) > model.MaxHandoffBytes {
		return nil, model.Errorf(model.CodeInvalidArgument, fmt.Sprintf("keep the handoff under %d bytes", model.MaxHandoffBytes),
			"%s holds more than %d bytes", name, model.MaxHandoffBytes).WithDetail("limit", model.MaxHandoffBytes)
	}
	return b, nil
}

func countSet(cmd *cobra.Command, names ...string) int {
	n := 0
	for _, name := range names {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			n++
		}
	}
	return n
}

func newHandoffCreateCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var f handoffFlags
	cmd := &cobra.Command{
		Use:   "create (--file F | --title T --objective O --project-path P --constraint C --operation OP --risk R ...) [--json]",
		Short: "Validate and persist a handoff; nothing runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			raw, err := f.raw(cmd)
			if err != nil {
				return err
			}
			res, err := operatorCall(&o, cmd, api.HandoffCreate, api.HandoffCreateParams{Handoff: raw})
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "%s  %s  risk %s  %s\n  file: %s\n", res.HandoffID, res.Handoff.Title, res.Handoff.RiskLevel, strings.Join(res.Handoff.Operations, ","), res.HandoffFile)
				for _, r := range res.SkillRecommendations {
					fmt.Fprintf(w, "  skill %s (score %d): %s\n", r.Name, r.Score, r.Reason)
				}
				fmt.Fprintf(w, "  start it: codexhost task start --handoff %s\n", res.HandoffID)
			})
		},
	}
	o.register(cmd)
	f.register(cmd)
	return cmd
}

func newHandoffListCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.HandoffListParams
	var tf tableFlags
	cmd := &cobra.Command{
		Use:   "list [--limit N] [--json]",
		Short: "List handoffs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := tf.check(); err != nil {
				return err
			}
			res, err := operatorCall(&o, cmd, api.HandoffList, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { tf.show(cmd, w, opview.Handoffs(res.Handoffs), "") })
		},
	}
	o.register(cmd)
	tf.register(cmd, opview.HandoffColumns)
	cmd.Flags().IntVar(&p.Limit, "limit", 20, "how many, 1 to 100")
	return cmd
}

func newHandoffShowCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	cmd := &cobra.Command{
		Use:   "show ID [--json]",
		Short: "Show a handoff in full",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := operatorCall(&o, cmd, api.HandoffShow, api.HandoffShowParams{HandoffID: args[0]})
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				fmt.Fprintf(w, "%s  risk %s  dir %s\n", res.Summary.HandoffID, res.Summary.RiskLevel, res.Summary.Dir)
				_ = enc.Encode(res.Handoff)
			})
		},
	}
	o.register(cmd)
	return cmd
}
