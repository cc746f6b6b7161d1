package cli

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Environment variables the CLI reads besides the connection's (api.ResolveConnection).
const (
	envHome        = "CODEXHOST_HOME"
	envClientToken = api.EnvClientToken
	envEndpoint    = api.EnvClientEndpoint
)

// dialTimeout bounds connecting and authenticating; the runtime is local or on loopback.
const dialTimeout = 5 * time.Second

// homeDir is CODEXHOST_HOME or ~/.codexhost.
func homeDir(ctx context.Context) (string, error) {
	if h := envOf(ctx).get(envHome); h != "" {
		return filepath.Abs(h)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", model.Errorf(model.CodeFailedPrecondition, "set CODEXHOST_HOME", "cannot find the home directory: %v", err)
	}
	return filepath.Join(home, ".codexhost"), nil
}

// clientFlags are the connection flags of agent-facing commands.
type clientFlags struct {
	clientToken string
	endpoint    string
}

func (f *clientFlags) register(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVar(&f.clientToken, "client-token", "", "client token for the external listener (or "+envClientToken+")")
	cmd.PersistentFlags().StringVar(&f.endpoint, "endpoint", "", "runtime endpoint for --client-token (or "+envEndpoint+"; default: the home's socket)")
	markJSONErrors(cmd)
}

// connectAgent opens the runtime connection of an agent-facing command. Host parameters, when
// present, are the only ones used; otherwise only a client token opens the client listener.
// Nothing else is tried: no other runtime, no other codexhost from PATH. hasOperatorForm says
// whether the command takes --operator, so that the hint names it only where it works.
func (f *clientFlags) connectAgent(ctx context.Context, hasOperatorForm bool) (*api.Client, error) {
	conn, err := resolveConnection(ctx, f.clientToken, f.endpoint)
	if err != nil {
		return nil, err
	}
	if conn.Kind == api.ConnOperator {
		hint := "run this inside a codexhost harness (which provides the connection), or pass --client-token (create one with `codexhost client add NAME`)"
		if hasOperatorForm {
			hint += "; at the keyboard add --operator"
		}
		return nil, model.Errorf(model.CodeRuntimeUnreachable, hint,
			"no runtime connection: %s is not set and no client token was given", api.EnvEndpoint)
	}
	return dial(ctx, conn.Endpoint, conn.Token)
}

// resolveConnection is api.ResolveConnection with this command's environment and flags.
func resolveConnection(ctx context.Context, clientToken, endpoint string) (api.Connection, error) {
	return api.ResolveConnection(api.ConnectionInputs{
		Getenv:      envOf(ctx).get,
		ClientToken: clientToken,
		Endpoint:    endpoint,
		Home:        func() (string, error) { return homeDir(ctx) },
	})
}

// dial connects and authenticates. A runtime at a connection cap (RESOURCE_EXHAUSTED: the
// client's own, or the runtime's) is tried again until dialTimeout, so a burst of one
// client's commands is served in turn rather than failed.
func dial(ctx context.Context, endpoint, token string) (*api.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	backoff := 10 * time.Millisecond
	for {
		c, err := api.Dial(ctx, endpoint, token)
		if err == nil || !model.IsCode(err, model.CodeResourceExhausted) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 250*time.Millisecond)
	}
}

// callerHint is what this process knows about its caller.
func callerHint(ctx context.Context, parentThread string) api.CallerHint {
	cwd, _ := os.Getwd()
	return api.CallerHint{ParentThread: parentThread, EnvThread: envOf(ctx).get(api.EnvThreadID), Cwd: cwd}
}
