package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime"
)

func newServeCmd() *cobra.Command {
	var listen string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "serve [--listen 127.0.0.1:PORT]",
		Short: "Run the host runtime without the terminal app",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			host, err := openHost(ctx, listen)
			if err != nil {
				return err
			}
			defer host.Close()
			if asJSON {
				b, _ := json.Marshal(map[string]any{"endpoints": host.Endpoints(), "pid": os.Getpid()})
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "codexhost runtime listening on %s\n", strings.Join(host.Endpoints(), " and "))
			}
			err = host.Serve(ctx)
			if ctx.Err() != nil {
				return nil // a signal is a clean stop
			}
			return err
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "also listen on this loopback TCP address for external clients")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the endpoints as JSON")
	return cmd
}

// openHost starts a runtime on the home with this binary as the harnesses' CLI.
func openHost(ctx context.Context, listen string) (*runtime.Host, error) {
	home, err := homeDir()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return runtime.Open(ctx, runtime.Options{Home: home, Listen: listen, CLIPath: self, Environ: os.Environ(), Version: Version, Log: os.Stderr})
}
