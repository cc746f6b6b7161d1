package cli

import (
	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

// The five compat tools of the legacy supervisor, for agents: one JSON document on stdout.
// Their endpoints are the catalog's local hosts, chosen with --host (--endpoint is the
// runtime connection, as on every agent-facing command).

// No backticks: pflag would take a quoted name for the flag's value placeholder.
const compatHostUsage = "endpoint: a local catalog host id such as gateway:local (codexhost hosts lists them)"

func newCompatCmd() *cobra.Command {
	var a agentCommand
	cmd := &cobra.Command{
		Use:   "compat",
		Short: "Legacy supervisor tools: probe endpoints, list, read, steer and interrupt Codex sessions (agent-facing)",
		Long: "The five tools kept from the legacy Codex supervisor, over the catalog's local hosts (endpoints).\n\n" +
			"sessions-list shows the sessions loaded in each endpoint's App Server; --include-stored adds unarchived " +
			"stored ones, at most --max-stored-sessions per endpoint (default [supervision] max_stored_sessions or 200, " +
			"1 to 1000); loaded sessions are never capped. session-send never starts or resumes a thread: it only " +
			"steers a running turn (mode auto or steer; start is refused), and session-interrupt only stops one.\n\n" +
			"Agents need [supervision] enabled = true in config.toml; session-read and previews need allowRawTranscripts, " +
			"send and interrupt allowWriteControls. External clients need operator.read (operator.write for send and " +
			"interrupt) and the same flags under [clients.NAME].",
		Args: cobra.NoArgs,
	}
	a.register(cmd)
	cmd.AddCommand(newCompatProbeCmd(&a), newCompatListCmd(&a), newCompatReadCmd(&a), newCompatSendCmd(&a), newCompatInterruptCmd(&a))
	return cmd
}

func newCompatProbeCmd(a *agentCommand) *cobra.Command {
	var p api.CompatProbeParams
	cmd := &cobra.Command{
		Use:   "endpoint-probe [--host ID]",
		Short: "Reach each endpoint's App Server and report its Codex version and loaded sessions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMethod(a, cmd, api.CompatEndpointProbe, p, nil)
		},
	}
	cmd.Flags().StringVar(&p.Endpoint, "host", "", compatHostUsage+" (default: every one)")
	return cmd
}

func newCompatListCmd(a *agentCommand) *cobra.Command {
	var (
		p         api.CompatSessionsListParams
		maxStored int
	)
	cmd := &cobra.Command{
		Use:   "sessions-list [--host ID] [--include-stored [--max-stored-sessions N]]",
		Short: "List the sessions loaded in each endpoint's App Server (and stored ones with --include-stored)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("max-stored-sessions") {
				p.MaxStoredSessions = &maxStored
			}
			return runMethod(a, cmd, api.CompatSessionsList, p, nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.Endpoint, "host", "", compatHostUsage+" (default: every one)")
	f.BoolVar(&p.IncludeStored, "include-stored", false, "add unarchived stored sessions that are not loaded")
	f.IntVar(&maxStored, "max-stored-sessions", 0, "stored sessions per endpoint, 1 to 1000 (default: [supervision] max_stored_sessions, else 200)")
	return cmd
}

func newCompatReadCmd(a *agentCommand) *cobra.Command {
	var p api.CompatSessionReadParams
	cmd := threadCmd(a, "session-read T [--host ID] [--cursor C]", "Read a session and a page of its turns (needs allowRawTranscripts)",
		api.CompatSessionRead, &p, func(t string) { p.Thread = t })
	cmd.Flags().StringVar(&p.Endpoint, "host", "", compatHostUsage+" (default: gateway:local)")
	cmd.Flags().StringVar(&p.Cursor, "cursor", "", "olderCursor or newerCursor of an earlier read of the same session")
	return cmd
}

func newCompatSendCmd(a *agentCommand) *cobra.Command {
	var (
		p       api.CompatSessionSendParams
		message string
	)
	cmd := &cobra.Command{
		Use:   "session-send T [--message TEXT | stdin] [--mode auto|steer] [--expected-turn-id ID] [--host ID]",
		Short: "Add a message to a session's running turn; never starts or resumes a thread (needs allowWriteControls)",
		Args:  exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := readText(cmd, "message", message)
			if err != nil {
				return err
			}
			p.Thread, p.Message = args[0], text
			return runMethod(a, cmd, api.CompatSessionSend, p, nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&message, "message", "", "message text (default: read stdin)")
	f.StringVar(&p.Mode, "mode", api.CompatModeAuto, "auto or steer: both steer the running turn; start is refused")
	f.StringVar(&p.ExpectedTurnID, "expected-turn-id", "", "refuse unless this is the running turn")
	f.StringVar(&p.Endpoint, "host", "", compatHostUsage+" (default: gateway:local)")
	return cmd
}

func newCompatInterruptCmd(a *agentCommand) *cobra.Command {
	var p api.CompatSessionInterruptParams
	cmd := threadCmd(a, "session-interrupt T [--expected-turn-id ID] [--host ID]", "Interrupt a session's running turn (needs allowWriteControls)",
		api.CompatSessionInterrupt, &p, func(t string) { p.Thread = t })
	cmd.Flags().StringVar(&p.ExpectedTurnID, "expected-turn-id", "", "refuse unless this is the running turn")
	cmd.Flags().StringVar(&p.Endpoint, "host", "", compatHostUsage+" (default: gateway:local)")
	return cmd
}
