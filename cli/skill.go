package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/agentskill"
	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/model"
)

// newSkillCmd manages the codexhost-delegation skill in the folders agents read skills from.
func newSkillCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skill",
		Short: "Install, remove or check the codexhost-delegation skill for Codex and other agents",
		Args:  cobra.NoArgs,
	}
	// The short text says "remove" and "check": those words lead to the commands that do it.
	remove := skillCmd("uninstall", "Move the skill aside in every root (a copy you changed stays)", func(roots, legacy []string) ([]agentskill.RootStatus, error) {
		return agentskill.Uninstall(append(roots, legacy...), time.Now())
	})
	remove.SuggestFor = []string{"remove"}
	check := skillCmd("status", "Show in each root whether the skill is absent, current, outdated or changed", func(roots, legacy []string) ([]agentskill.RootStatus, error) {
		return agentskill.Status(append(roots, legacy...))
	})
	check.SuggestFor = []string{"check"}
	cmd.AddCommand(
		skillCmd("install", "Install or update the skill in ~/.agents/skills (read by Codex and others) and ~/.claude/skills; an older copy of ours in $CODEX_HOME/skills is moved aside, so Codex lists it once (a copy you changed is left alone)",
			func(roots, legacy []string) ([]agentskill.RootStatus, error) {
				return agentskill.InstallOnce(roots, legacy, time.Now())
			}),
		remove, check,
	)
	return cmd
}

func skillCmd(name, short string, do func(roots, legacy []string) ([]agentskill.RootStatus, error)) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   name + " [--json]",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e := envOf(cmd.Context())
			home := e.get("HOME")
			if home == "" {
				return model.Errorf(model.CodeFailedPrecondition, "set HOME", "HOME is not set")
			}
			roots, err := do(agentskill.Roots(home), agentskill.LegacyRoots(home, e.get("CODEX_HOME")))
			if err != nil {
				return err
			}
			return printSkill(cmd.OutOrStdout(), name, roots, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printSkill(w io.Writer, command string, roots []agentskill.RootStatus, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(struct {
			Skill string                  `json:"skill"`
			Roots []agentskill.RootStatus `json:"roots"`
		}{agentskill.Name, roots})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	w = termsafe.NewWriter(w)
	defer termsafe.Unwrap(w)
	for _, r := range roots {
		line := fmt.Sprintf("%-9s %s", r.State, r.Path)
		if r.Action != "" {
			line += "  (" + r.Action + ")"
		}
		if r.Action == "conflict" {
			line += "  changed since it was installed: left as it is; " + conflictFix(command, filepath.Dir(r.Path))
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// conflictFix says what to do about a copy the user changed, which codexhost never touches.
func conflictFix(command, dir string) string {
	if command == "install" {
		return "to take this build's copy, move " + dir + " aside and run `codexhost skill install` again"
	}
	return "delete " + dir + " yourself if you want it gone"
}
