package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

func newHostsCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	cmd := &cobra.Command{
		Use:   "hosts [--json]",
		Short: "List the catalog's hosts, their capabilities and health",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var res api.CatalogHostsResult
			if err := o.call(cmd, api.MethodCatalogHosts, struct{}{}, &res); err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printHosts(w, res) })
		},
	}
	o.register(cmd)
	return cmd
}

func printHosts(w io.Writer, res api.CatalogHostsResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tKIND\tCAPABILITIES\tHEALTH")
	for _, h := range res.Hosts {
		id := h.ID
		if h.Default {
			id += " (default)"
		}
		health := h.Health.State
		if h.Health.State == api.CatalogHealthError {
			health = h.Health.Code + ": " + h.Health.Message
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", id, h.Kind, strings.Join(h.Capabilities, ","), health)
	}
	_ = tw.Flush()
}

// Operator connection, shared by the operator commands (sessions, transcript, archive,
// hosts). These are for the person at the keyboard: without a client token they use the
// home's own `local` client, and when no runtime holds the home they start one for the
// command. Agent-facing commands never do either, and neither do these inside a harness
// process, where the host's connection parameters decide who is calling.

// localClient is the name of the home's own operator client.
const localClient = config.OperatorClient

// maxOperatorTimeout bounds an operator command's --timeout.
const maxOperatorTimeout = 24 * time.Hour

// operatorTokenFile holds the local client's token inside the home (0600).
const operatorTokenFile = "operator.token"

type operatorCommand struct {
	clientToken string
	endpoint    string
	asJSON      bool
	// timeoutMs bounds the whole command (--timeout); its value before register is the
	// command's default. Zero waits as long as the call takes.
	timeoutMs int
}

func (o *operatorCommand) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	f.StringVar(&o.clientToken, "client-token", "", "client token of a runtime's external listener (or "+envClientToken+"; default: the home's local operator client)")
	f.StringVar(&o.endpoint, "endpoint", "", "runtime endpoint for --client-token (or "+envEndpoint+"; default: the home's socket)")
	if o.timeoutMs > 0 {
		f.IntVar(&o.timeoutMs, "timeout", o.timeoutMs, "give up after this many milliseconds (at most a day)")
	}
}

// print writes res as JSON with --json, else in the human form.
func (o *operatorCommand) print(cmd *cobra.Command, res any, human func(io.Writer)) error {
	w := cmd.OutOrStdout()
	if o.asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	human(w)
	return nil
}

// call runs one runtime method for an operator command, through a session that lasts for
// this one call (connecting, or embedding a runtime, as operatorSession does).
func (o *operatorCommand) call(cmd *cobra.Command, method string, params, result any) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if o.timeoutMs < 0 {
		return model.Errorf(model.CodeInvalidArgument, "give --timeout in milliseconds, more than 0", "invalid --timeout %d", o.timeoutMs)
	}
	if o.timeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, model.ClampMillis(int64(o.timeoutMs), maxOperatorTimeout))
		defer cancel()
	}
	home, err := homeDir()
	if err != nil {
		return err
	}
	logw, closeLog := runtimeLog(home, "runtime-embedded.log")
	defer closeLog()
	s, err := openOperator(ctx, home, *o, logw)
	if err == nil {
		defer s.Close()
		err = s.Call(ctx, method, params, result)
	}
	if errors.Is(err, context.DeadlineExceeded) || (err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)) {
		// The runtime may still finish what it was asked: say so rather than guess.
		return model.Errorf(model.CodeRuntimeUnreachable, "raise --timeout; a write (continue, archive) may still complete: check with `codexhost sessions` or `codexhost thread list`",
			"no answer within %d ms", o.timeoutMs).WithDetail("timeoutMs", o.timeoutMs)
	}
	return err
}

// localOperatorToken returns the home's operator token, creating it (and registering its
// hash as client `local` in config.toml) on first use.
func localOperatorToken(home string) (string, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", model.Errorf(model.CodeFailedPrecondition, "check CODEXHOST_HOME", "create the home: %v", err)
	}
	path := filepath.Join(home, operatorTokenFile)
	token, err := readOperatorToken(path)
	if errors.Is(err, os.ErrNotExist) {
		token = config.NewToken()
		f, cerr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		switch {
		case errors.Is(cerr, os.ErrExist):
			token, err = readOperatorToken(path) // another command made it first
		case cerr != nil:
			return "", model.Errorf(model.CodeFailedPrecondition, "check the permissions of the home directory", "create the operator token: %v", cerr)
		default:
			_, werr := f.WriteString(token + "\n")
			serr := f.Sync()
			if cerr := f.Close(); werr != nil || serr != nil || cerr != nil {
				_ = os.Remove(path)
				return "", model.Errorf(model.CodeFailedPrecondition, "check the free space of the home directory", "write the operator token failed")
			}
			err = nil
		}
	}
	if err != nil {
		return "", err
	}
	cfg, err := config.Load(home)
	if err != nil {
		return "", err
	}
	want := config.HashToken(token)
	if cl, ok := cfg.Clients[localClient]; !ok || cl.TokenSHA256 != want || len(cl.Scopes) == 0 {
		err := config.Update(home, func(cfg *config.Config) error { registerLocalClient(cfg, want); return nil })
		var me *model.Error
		if errors.As(err, &me) {
			return "", me
		}
		if err != nil {
			return "", model.Errorf(model.CodeFailedPrecondition, "check the permissions of config.toml", "register the local operator client: %v", err)
		}
	}
	return token, nil
}

// registerLocalClient makes config.toml follow the token file, the operator's credential.
func registerLocalClient(cfg *config.Config, want string) {
	if cl, ok := cfg.Clients[localClient]; !ok || cl.TokenSHA256 != want || len(cl.Scopes) == 0 {
		// The token file is the operator's credential; config.toml follows it. The client gets
		// every operator scope and both controls when made, or when it has no scopes (it was
		// written before scopes existed); scopes narrowed by hand are kept.
		if cfg.Clients == nil {
			cfg.Clients = map[string]config.Client{}
		}
		cl.TokenSHA256 = want
		if len(cl.Scopes) == 0 {
			g := config.OperatorGrant()
			cl.Scopes, cl.AllowRawTranscripts, cl.AllowWriteControls = g.Scopes, g.AllowRawTranscripts, g.AllowWriteControls
		}
		cfg.Clients[localClient] = cl
	}
}

func readOperatorToken(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", model.Errorf(model.CodeFailedPrecondition, "run `chmod 600 "+path+"`", "the operator token file is readable by others")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if len(token) < 32 {
		return "", model.Errorf(model.CodeFailedPrecondition, "delete "+path+"; a new one is made on the next operator command", "the operator token file is damaged")
	}
	return token, nil
}

// shortTime renders a time for the human tables.
func shortTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}
