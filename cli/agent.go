package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// agentCommand carries what every agent-facing command shares: connection and output flags.
type agentCommand struct {
	conn clientFlags
	out  formatFlag
}

func (a *agentCommand) register(cmd *cobra.Command) {
	a.conn.register(cmd)
	a.out.register(cmd)
}

// runMethod connects, calls m with p and prints the result, or what view makes of it when
// view is given (to add what only the CLI knows, such as its own path in next commands).
func runMethod[P, R any](a *agentCommand, cmd *cobra.Command, m api.Method[P, R], p P, view func(*R) any) error {
	if err := a.out.validate(); err != nil {
		return err
	}
	ctx, c, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := m.Call(ctx, c, p)
	if err != nil {
		return err
	}
	var out any = &res
	if view != nil {
		out = view(&res)
	}
	return a.out.print(cmd.OutOrStdout(), out)
}

// dial connects as an agent-facing command does; the caller closes the client.
func (a *agentCommand) dial(cmd *cobra.Command) (context.Context, *api.Client, error) {
	ctx := cmdContext(cmd)
	c, err := a.conn.connectAgent(ctx, false)
	return ctx, c, err
}

// cmdContext is the command's context (its environment rides on it), or a background one.
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// selfPath is the absolute path of this binary, as next commands spell it.
func selfPath() string {
	p, err := os.Executable()
	if err != nil {
		return "codexhost"
	}
	if resolved, err := filepath.EvalSymlinks(p); err == nil {
		p = resolved
	}
	return p
}

// readText takes --flag TEXT, or stdin when the flag is absent and stdin is not a terminal.
func readText(cmd *cobra.Command, flag, value string) (string, error) {
	if value != "" {
		return value, nil
	}
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return "", model.Errorf(model.CodeInvalidArgument, "pass --"+flag+" TEXT or pipe the text on stdin", "no %s given", flag)
		}
	}
	b, err := io.ReadAll(io.LimitReader(in, api.MaxTextBytes+1))
	if err != nil {
		return "", model.Errorf(model.CodeInvalidArgument, "pass --"+flag+" TEXT instead", "read stdin: %v", err)
	}
	text := strings.TrimRight(string(b), "\n")
	if len(b) > api.MaxTextBytes {
		return "", model.Errorf(model.CodeInvalidArgument, "put long material in a file and reference it", "%s on stdin exceeds %d bytes", flag, api.MaxTextBytes)
	}
	if strings.TrimSpace(text) == "" {
		return "", model.Errorf(model.CodeInvalidArgument, "pass --"+flag+" TEXT or pipe the text on stdin", "empty %s", flag)
	}
	return text, nil
}
