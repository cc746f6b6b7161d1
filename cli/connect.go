package cli

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Environment variables the CLI reads.
const (
	envHome        = "CODEXHOST_HOME"
	envClientToken = "CODEXHOST_CLIENT_TOKEN"
	envEndpoint    = "CODEXHOST_ENDPOINT"
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
// Nothing else is tried: no other runtime, no other codexhost from PATH.
func (f *clientFlags) connectAgent(ctx context.Context) (*api.Client, error) {
	e := envOf(ctx)
	endpoint, token := e.get(harness.EnvEndpoint), e.get(harness.EnvToken)
	if endpoint != "" || token != "" {
		if endpoint == "" || token == "" {
			return nil, model.Errorf(model.CodeRuntimeUnreachable, "run the command inside a codexhost harness, which sets both "+harness.EnvEndpoint+" and "+harness.EnvToken, "incomplete host connection parameters")
		}
		return dial(ctx, endpoint, token)
	}
	clientToken := f.clientToken
	if clientToken == "" {
		clientToken = e.get(envClientToken)
	}
	if clientToken == "" {
		return nil, model.Errorf(model.CodeRuntimeUnreachable,
			"run this inside a codexhost harness (which provides the connection), or pass --client-token (create one with `codexhost client add NAME`); at the keyboard add --operator",
			"no runtime connection: %s is not set and no client token was given", harness.EnvEndpoint)
	}
	ep := f.endpoint
	if ep == "" {
		ep = e.get(envEndpoint)
	}
	if ep == "" {
		home, err := homeDir(ctx)
		if err != nil {
			return nil, err
		}
		ep = "unix://" + filepath.Join(home, runtime.SocketName)
	}
	return dial(ctx, ep, clientToken)
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
	return api.CallerHint{ParentThread: parentThread, EnvThread: envOf(ctx).get(harness.EnvThreadID), Cwd: cwd}
}
