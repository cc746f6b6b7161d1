package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

func newClientCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "client",
		Short: "Manage external clients (scripts, bots) of the runtime",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newClientAddCmd(), newClientEventsCmd(), newClientWhoamiCmd())
	return cmd
}

func newClientAddCmd() *cobra.Command {
	var (
		asJSON, asText bool
		grant          config.Grant
	)
	cmd := &cobra.Command{
		Use:   "add NAME [--scope S]... [--text]",
		Short: "Create a client token (printed once; only its SHA-256 is stored)",
		Long: "Create a client token (printed once; only its SHA-256 is stored).\n\n" +
			"Without --scope the client has no operator scope: it cannot list, read or change Codex sessions. " +
			"operator.read lists hosts and sessions and reads transcripts; operator.write adds continue and archive " +
			"of local threads; operator.admin adds continue of a paired node's thread. Continue and archive also " +
			"need --allow-write-controls.\n\n" +
			"It prints one JSON document, {\"client\":NAME,\"token\":TOKEN}; --text prints it for people.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return invalidArgs(cmd, "expects the client's name")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := homeDir(cmd.Context())
			if err != nil {
				return err
			}
			if err := os.MkdirAll(home, 0o700); err != nil {
				return err
			}
			if err := config.RefuseReservedName(args[0]); err != nil {
				return err
			}
			var token string
			kept, err := config.Update(home, func(cfg *config.Config) error {
				var aerr error
				token, aerr = cfg.AddClient(args[0], grant)
				return aerr
			})
			if err != nil {
				return err
			}
			noteKept(cmd.ErrOrStderr(), kept)
			if !asText {
				b, _ := json.Marshal(api.ClientAddResult{Client: args[0], Token: token})
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "client %s created; its token (shown only now):\n%s\nuse it with --client-token or CODEXHOST_CLIENT_TOKEN\n", args[0], token)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", true, "print as JSON (the default)")
	hideDefaultJSON(cmd)
	cmd.Flags().BoolVar(&asText, "text", false, "print the token for people instead of JSON")
	cmd.Flags().StringArrayVar(&grant.Scopes, "scope", nil, "grant an operator scope: "+strings.Join(config.OperatorScopes, ", ")+" (repeatable)")
	cmd.Flags().BoolVar(&grant.AllowWriteControls, "allow-write-controls", false, "allow write actions (continue, archive; compat send and interrupt) within the client's scopes")
	cmd.Flags().BoolVar(&grant.AllowRawTranscripts, "allow-raw-transcripts", false, "allow transcript reads and previews of the compat tools")
	return cmd
}
