package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/runtime/api"
)

// newCodexCmd is the headless face of the terminal app's Codex setup panel.
func newCodexCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "codex",
		Short: "Where the runtime finds its codex binary, and installing the pinned @openai/codex into the home",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCodexStatusCmd(), newCodexInstallCmd())
	return cmd
}

func newCodexStatusCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	cmd := &cobra.Command{
		Use:   "status [--json]",
		Short: "Show the codex binary the runtime's App Servers start, or why there is none and the fix",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := operatorCall(&o, cmd, api.GetCodexStatus, struct{}{})
			if err != nil {
				return err
			}
			return o.print(cmd, st, func(w io.Writer) { printCodexStatus(w, st) })
		},
	}
	o.register(cmd)
	return cmd
}

func newCodexInstallCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: int((20 * time.Minute).Milliseconds())}
	cmd := &cobra.Command{
		Use: "install [--json]",
		Short: "Install the pinned @openai/codex with npm into the home (CODEXHOST_HOME/codex/VERSION) and start the App Server on it; " +
			"npm's lines go to stderr",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			errw := cmd.ErrOrStderr()
			res, err := operatorCallEvents(&o, cmd, api.CodexInstall, api.CodexInstallParams{Progress: true}, func(ev api.Event) {
				if ev.Type == api.EventCodexInstall && ev.Install != nil {
					fmt.Fprintln(errw, termsafe.String(ev.Install.Line))
				}
			})
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "installed codex %s in %s: %s\n", res.Version, (time.Duration(res.DurationMs) * time.Millisecond).Round(time.Second), res.Bin)
				if res.Started {
					fmt.Fprintln(w, "the App Server runs on it")
				} else if res.StartError != nil {
					printFinding(w, res.StartError)
				}
			})
		},
	}
	o.register(cmd)
	return cmd
}

func printCodexStatus(w io.Writer, st api.CodexStatus) {
	if st.Available {
		fmt.Fprintf(w, "codex   %s\n", st.Bin)
		return
	}
	fmt.Fprintln(w, "codex   not available")
	printFinding(w, st.Error)
	if st.CanInstall {
		fmt.Fprintf(w, "install `codexhost codex install` puts @openai/codex@%s into %s with %s\n", st.PinnedVersion, st.InstallDir, st.NPM)
	} else if st.InstallRefusal != nil {
		fmt.Fprintln(w, "install not from here:")
		printFinding(w, st.InstallRefusal)
	}
}
