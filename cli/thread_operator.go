package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

// The thread and delegate commands are agent-facing: without host parameters or a client token they stop
// at RUNTIME_UNREACHABLE, so that an agent never reaches a runtime it was not given. The
// person at the keyboard says --operator instead: the command then connects as the operator
// commands do (the home's local client, a runtime started for the command when none holds the
// home), and the hints given to operators name that form.

// operatorFlagName is the flag of the thread commands' operator form.
const operatorFlagName = "operator"

// runtimeCaller is a connection one command calls through.
type runtimeCaller interface {
	api.Requester
	Close()
}

type agentClient struct{ *api.Client }

func (c agentClient) Close() { _ = c.Client.Close() }

// operatorCaller is the operator form's connection. When it embedded the runtime, a turn it
// started would end with the command: a send, or a delegation, then waits for the turn
// before returning.
type operatorCaller struct{ *operatorSession }

func (c operatorCaller) Call(ctx context.Context, method string, params, out any) error {
	if err := c.operatorSession.Call(ctx, method, params, out); err != nil || !c.embedded() {
		return err
	}
	switch method {
	case api.ThreadSend.Name:
		p, _ := params.(api.ThreadSendParams)
		_, err := c.waitForTurn(ctx, p.Thread)
		return err
	case api.DelegateStart.Name:
		res, ok := out.(*api.DelegateStartResult)
		if !ok {
			return nil
		}
		// The child's status is then the one its turn ended with, not the one it started in.
		status, err := c.waitForTurn(ctx, res.ThreadID)
		if err == nil {
			res.Status = status
		}
		return err
	}
	return nil
}

// waitForTurn returns thread's status once no turn of it runs.
func (c operatorCaller) waitForTurn(ctx context.Context, thread string) (string, error) {
	for {
		wait := api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: thread}, TimeoutMs: api.WaitMs(int(api.MaxWaitTimeout / time.Millisecond))}
		res, err := api.ThreadWait.Call(ctx, c.operatorSession, wait)
		if err != nil {
			return "", err
		}
		if res.TimedOut == nil || !*res.TimedOut {
			return res.Status, nil
		}
	}
}

// connect opens the command's connection: the operator form's with --operator, else the
// agent's.
func (a *agentCommand) connect(cmd *cobra.Command) (context.Context, runtimeCaller, error) {
	ctx := cmdContext(cmd)
	if operatorForm(cmd) {
		home, err := homeDir(ctx)
		if err != nil {
			return ctx, nil, err
		}
		logw, closeLog := runtimeLog(home, "runtime-embedded.log")
		s, err := openOperator(ctx, home, operatorCommand{clientToken: a.conn.clientToken, endpoint: a.conn.endpoint}, logw)
		if err != nil {
			closeLog()
			return ctx, nil, err
		}
		return ctx, closingCaller{operatorCaller{s}, closeLog}, nil
	}
	c, err := a.conn.connectAgent(ctx, cmd.Flag(operatorFlagName) != nil)
	if err != nil {
		return ctx, nil, err
	}
	return ctx, agentClient{c}, nil
}

type closingCaller struct {
	runtimeCaller
	after func()
}

func (c closingCaller) Close() { c.runtimeCaller.Close(); c.after() }

// operatorForm reports whether cmd runs in the operator form (--operator).
func operatorForm(cmd *cobra.Command) bool {
	fl := cmd.Flag(operatorFlagName)
	return fl != nil && fl.Value.String() == "true"
}

// nextCommands are the follow-up commands of thread as this command's caller runs them: the
// operator form's carry --operator, since without it they stop at RUNTIME_UNREACHABLE.
func nextCommands(cmd *cobra.Command, thread string) *api.NextCommands {
	if operatorForm(cmd) {
		return api.NewNext(selfPath(), thread, "--"+operatorFlagName)
	}
	return api.NewNext(selfPath(), thread)
}

// registerOperatorForm gives a command group the --operator flag.
func registerOperatorForm(cmd *cobra.Command) {
	cmd.PersistentFlags().Bool(operatorFlagName, false, "run as the person at the keyboard: the home's local operator client, no token needed "+
		"(a runtime is started for the command when none runs; a send or a delegation then waits for its turn)")
}
