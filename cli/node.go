package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

func newNodeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Pair runtimes: share this machine's Codex sessions with a gateway, or reach another machine's",
		Long: "Pair runtimes. On the machine whose Codex sessions are to be shared (the node), `codexhost node allow NAME` " +
			"makes a node token and `codexhost serve --listen 127.0.0.1:PORT` serves it (listeners are loopback only: reach it " +
			"from the gateway through a tunnel such as `ssh -N -L PORT:127.0.0.1:PORT NODE`). On the gateway, `codexhost node pair NAME " +
			"HOST:PORT --token-stdin` records the node; its sessions then show under host node:NAME.\n\n" +
			"A node offers " + strings.Join(api.NodeCommands, ", ") + " (narrow it with [node] commands in its config.toml). " +
			"The gateway invokes the first two unless denied in gateway.nodes.commands.deny; " + api.NodeCmdSessionResume +
			" (continue) also needs gateway.nodes.commands.allow, and a deny always wins.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newNodeAllowCmd(), newNodePairCmd())
	return cmd
}

// updateHomeConfig changes the home's config.toml under its lock (config.Update), telling
// stderr where the previous file is kept when the rewrite dropped its comments.
func updateHomeConfig(cmd *cobra.Command, fn func(*config.Config) error) error {
	home, err := homeDir(cmd.Context())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	kept, err := config.Update(home, fn)
	noteKept(cmd.ErrOrStderr(), kept)
	return err
}

// noteKept says where the previous config.toml is when a rewrite dropped its comments.
func noteKept(w io.Writer, kept string) {
	if kept != "" {
		fmt.Fprintln(w, config.KeptNote(kept))
	}
}

func newNodeAllowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "allow NAME",
		Short: "Make a node token for a gateway (printed once); the gateway may then read this machine's Codex session metadata",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return invalidArgs(cmd, "expects a name for the gateway")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var (
				token      string
				advertised []string
			)
			if err := updateHomeConfig(cmd, func(cfg *config.Config) error {
				var aerr error
				token, aerr = cfg.AddNodeClient(args[0])
				advertised = cfg.NodeAdvertised()
				return aerr
			}); err != nil {
				return err
			}
			if asJSON {
				b, _ := json.Marshal(map[string]any{"client": args[0], "token": token, "commands": advertised})
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "node token for %s (shown only now):\n%s\nserve it with `codexhost serve --listen 127.0.0.1:PORT` (tunnel it to the gateway); on the gateway run `codexhost node pair NAME HOST:PORT --token-stdin`\n", args[0], token)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func newNodePairCmd() *cobra.Command {
	var (
		asJSON     bool
		tokenStdin bool
	)
	cmd := &cobra.Command{
		Use:   "pair NAME HOST:PORT --token-stdin",
		Short: "Record a paired node (its token read from stdin); its sessions show under host node:NAME",
		Long: "Record a paired node (its token read from stdin); its sessions show under host node:NAME. A node listens on " +
			"loopback only (its token travels in clear text), so HOST:PORT is the local end of a tunnel to it, such as ssh -L.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return invalidArgs(cmd, "expects the node's name and the HOST:PORT it serves on")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !tokenStdin {
				// A token on the command line would end up in shell history and process lists.
				return model.Errorf(model.CodeInvalidArgument, "pipe the token that `codexhost node allow` printed on the node: … | codexhost node pair NAME HOST:PORT --token-stdin",
					"node pair reads the token from stdin only")
			}
			line, err := bufio.NewReader(io.LimitReader(cmd.InOrStdin(), 4096)).ReadString('\n')
			if err != nil && err != io.EOF {
				return err
			}
			if err := updateHomeConfig(cmd, func(cfg *config.Config) error { return cfg.PairNode(args[0], args[1], line) }); err != nil {
				return err
			}
			hostID := config.NodeHostPrefix + args[0]
			if asJSON {
				b, _ := json.Marshal(map[string]string{"node": args[0], "host": hostID, "address": args[1]})
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "paired node %s at %s as host %s; a running runtime picks it up when restarted\n", args[0], args[1], hostID)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().BoolVar(&tokenStdin, "token-stdin", false, "read the node token from stdin")
	return cmd
}
