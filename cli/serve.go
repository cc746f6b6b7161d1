package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/termsafe"
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
			out := cmd.OutOrStdout()
			announce := func(human string) {
				if asJSON {
					b, _ := json.Marshal(map[string]any{"role": host.Role(), "endpoints": host.Endpoints(), "pid": os.Getpid()})
					fmt.Fprintln(out, string(b))
					return
				}
				fmt.Fprintln(out, termsafe.String(human))
			}
			endpoints := func() string { return strings.Join(host.Endpoints(), " and ") }
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			if host.Role() == runtime.RoleFollower {
				// Another runtime holds the home: this one forwards its listener's requests to
				// it and takes the home over when it exits.
				msg := "codexhost runtime following the runtime that holds the home (taking over when it exits)"
				if eps := endpoints(); eps != "" {
					msg += ", listening on " + eps
				}
				announce(msg)
				go func() {
					select {
					case err := <-host.Promoted():
						if err != nil {
							cancel(err)
							return
						}
						announce(fmt.Sprintf("codexhost runtime took over the home, listening on %s", endpoints()))
						host.WarmCatalog()
					case <-ctx.Done():
					}
				}()
			} else {
				announce(fmt.Sprintf("codexhost runtime listening on %s", endpoints()))
				host.WarmCatalog() // its first search is then served from memory
			}
			err = host.Serve(ctx)
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				return cause // taking over failed
			}
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

// openHost starts a runtime on the home, or a follower of the one holding it, with this binary as the harnesses' CLI.
func openHost(ctx context.Context, listen string) (*runtime.Host, error) {
	home, err := homeDir(ctx)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// As the home's user, this runtime may follow one that already holds the home.
	return runtime.OpenOrFollow(ctx, runtime.Options{Home: home, Listen: listen, CLIPath: self, Environ: envOf(ctx).environ(), Version: Version, Log: os.Stderr, Follow: true})
}
