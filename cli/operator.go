package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Operator connection, shared by the operator commands (sessions, transcript, archive,
// hosts). These are for the person at the keyboard: without a client token they use the
// home's own `local` client, and when no runtime holds the home they start one for the
// command. Agent-facing commands never do either, and neither do these inside a harness
// process, where the host's connection parameters decide who is calling.

// localClient is the name of the home's own operator client.
const localClient = config.OperatorClient

// maxOperatorTimeout bounds an operator command's --timeout-ms.
const maxOperatorTimeout = 24 * time.Hour

// operatorByPeer is the token the operator sends: none, since the socket knows who it is.
const operatorByPeer = ""

type operatorCommand struct {
	clientToken string
	endpoint    string
	asJSON      bool
	// jsonByDefault: the command prints one JSON document unless --text is given, as the
	// agent-facing commands do (lineage, which agents read too).
	jsonByDefault bool
	asText        bool
	// timeoutMs bounds the whole command (--timeout-ms, or the older --timeout); its value
	// before register is the command's default. Zero waits as long as the call takes.
	timeoutMs int
	// timeoutMsTaken: the command's own --timeout-ms means something else (task start's turn
	// limit), so its bound keeps the name --timeout.
	timeoutMsTaken bool
	// oneShot: a runtime embedded for the session lives for one call.
	oneShot bool
	// appServer: the command needs the App Server; a runtime embedded for it starts it at once.
	appServer bool
}

// hideDefaultJSON keeps --json working where JSON is already the default, for scripts that
// pass it, but out of the help: a flag that changes nothing only misleads there.
func hideDefaultJSON(cmd *cobra.Command) { _ = cmd.Flags().MarkHidden("json") }

func (o *operatorCommand) register(cmd *cobra.Command) {
	f := cmd.Flags()
	if o.jsonByDefault {
		f.BoolVar(&o.asJSON, "json", true, "print the result as JSON (the default)")
		hideDefaultJSON(cmd)
		f.BoolVar(&o.asText, "text", false, "print the result for people instead of JSON")
	} else {
		f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	}
	f.StringVar(&o.clientToken, "client-token", "", "client token of a runtime's external listener (or "+envClientToken+"; default: the home's local operator client)")
	f.StringVar(&o.endpoint, "endpoint", "", "runtime endpoint for --client-token, unix:///path or tcp://HOST:PORT (or "+envEndpoint+"; default: the home's socket)")
	// What these commands already are: taken (hidden), so that a person who adds it, as the
	// thread, delegate and harness commands need at the keyboard, is not refused.
	f.Bool(operatorFlagName, false, "these commands act as the home's operator already")
	_ = f.MarkHidden(operatorFlagName)
	if o.timeoutMs <= 0 {
		return
	}
	if o.timeoutMsTaken {
		f.IntVar(&o.timeoutMs, "timeout", o.timeoutMs, "give up after this many milliseconds (at most a day)")
		return
	}
	f.IntVar(&o.timeoutMs, "timeout-ms", o.timeoutMs, "give up after this many milliseconds (at most a day)")
	// The older name of the same bound, kept hidden so that scripts written for it still run;
	// no deprecation notice, which pflag would print on stdout, into the JSON.
	f.IntVar(&o.timeoutMs, "timeout", o.timeoutMs, "the older name of --timeout-ms")
	_ = f.MarkHidden("timeout")
}

// timeoutGiven reports whether the command line set the bound (under either name).
func (o *operatorCommand) timeoutGiven(cmd *cobra.Command) bool {
	if o.timeoutMsTaken {
		return cmd.Flags().Changed("timeout")
	}
	return cmd.Flags().Changed("timeout-ms") || cmd.Flags().Changed("timeout")
}

// timeoutFlag is the name of the command's bound, for messages.
func (o *operatorCommand) timeoutFlag() string {
	if o.timeoutMsTaken {
		return "--timeout"
	}
	return "--timeout-ms"
}

// print writes res as JSON with --json (or by default for jsonByDefault commands unless
// --text), else in the human form.
func (o *operatorCommand) print(cmd *cobra.Command, res any, human func(io.Writer)) error {
	w := cmd.OutOrStdout()
	if o.asJSON && !o.asText {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	writeHuman(w, human)
	return nil
}

// operatorCall runs one runtime method for an operator command, through a session that lasts
// for this one call (connecting, or embedding a runtime, as operatorSession does).
func operatorCall[P, R any](o *operatorCommand, cmd *cobra.Command, m api.Method[P, R], p P) (R, error) {
	var res R
	err := o.withSession(cmd, func(ctx context.Context, s *operatorSession) (err error) {
		res, err = m.Call(ctx, s, p)
		return err
	})
	return res, err
}

// operatorCallEvents is operatorCall, handing fn the events the runtime sends for this call
// as they come.
func operatorCallEvents[P, R any](o *operatorCommand, cmd *cobra.Command, m api.Streaming[P, R], p P, fn func(api.Event)) (R, error) {
	var res R
	err := o.withSession(cmd, func(ctx context.Context, s *operatorSession) (err error) {
		res, err = m.CallEvents(ctx, s, p, fn)
		return err
	})
	return res, err
}

// withSession runs call on a one-call session, bounded by the command's timeout.
func (o *operatorCommand) withSession(cmd *cobra.Command, call func(context.Context, *operatorSession) error) error {
	ctx := cmdContext(cmd)
	// Zero is the command's own "no bound" (approvals --follow), never the user's: given,
	// it would wait past the day the help promises.
	if o.timeoutMs < 0 || (o.timeoutMs == 0 && o.timeoutGiven(cmd)) {
		return model.Errorf(model.CodeInvalidArgument, "give "+o.timeoutFlag()+" in milliseconds, more than 0", "invalid %s %d", o.timeoutFlag(), o.timeoutMs)
	}
	if o.timeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, model.ClampMillis(int64(o.timeoutMs), maxOperatorTimeout))
		defer cancel()
	}
	home, err := homeDir(ctx)
	if err != nil {
		return err
	}
	logw, closeLog := runtimeLog(home, "runtime-embedded.log")
	defer closeLog()
	one := *o
	one.oneShot = true
	s, err := openOperator(ctx, home, one, logw)
	if err == nil {
		defer s.Close()
		err = call(ctx, s)
	}
	if errors.Is(err, context.DeadlineExceeded) || (err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)) {
		// The runtime may still finish what it was asked: say so rather than guess.
		return model.Errorf(model.CodeRuntimeUnreachable, "raise "+o.timeoutFlag()+"; a write (continue, archive) may still complete: check with `codexhost sessions` or `codexhost thread list --operator --all-cwd`",
			"no answer within %d ms", o.timeoutMs).WithDetail("timeoutMs", o.timeoutMs)
	}
	return err
}

// prepareOperatorHome makes the home for the operator's first command. The operator has no
// token: the home's socket recognises it by its user and process (runtime/auth).
func prepareOperatorHome(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return model.Errorf(model.CodeFailedPrecondition, "check CODEXHOST_HOME", "create the home: %v", err)
	}
	return nil
}

// runtimeLog is the file in the home's logs where an embedded runtime writes: the app owns
// the screen, and an operator command's output is its result alone.
func runtimeLog(home, name string) (io.Writer, func()) {
	dir := filepath.Join(home, "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return io.Discard, func() {}
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return io.Discard, func() {}
	}
	return f, func() { _ = f.Close() }
}

// operatorSession is one lasting operator connection: the app's, and the lineage command's,
// which makes many calls. It connects as operator commands do (host parameters, a client
// token, or the home's local client) and, for the local client, starts an embedded runtime
// when none holds the home. After a loss it can connect again the same way.
type operatorSession struct {
	home  string
	o     operatorCommand
	logw  io.Writer
	local bool // the home's own operator client: may embed a runtime
	env   env  // the environment of the command that opened it

	mu     sync.Mutex
	client *api.Client
	host   *runtime.Host
	stop   func()
}

func openOperator(ctx context.Context, home string, o operatorCommand, logw io.Writer) (*operatorSession, error) {
	if logw == nil {
		logw = io.Discard
	}
	s := &operatorSession{home: home, o: o, logw: logw, env: envOf(ctx)}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *operatorSession) connect(ctx context.Context) error {
	conn, err := api.ResolveConnection(api.ConnectionInputs{
		Getenv:      s.env.get,
		ClientToken: s.o.clientToken,
		Endpoint:    s.o.endpoint,
		Home:        func() (string, error) { return s.home, nil },
	})
	if err != nil {
		return err
	}
	if conn.Kind != api.ConnOperator {
		return s.dial(ctx, conn.Endpoint, conn.Token)
	}
	s.mu.Lock()
	s.local = true
	s.mu.Unlock()
	if err := prepareOperatorHome(s.home); err != nil {
		return err
	}
	err = s.dial(ctx, conn.Endpoint, operatorByPeer)
	if err == nil || !model.IsCode(err, model.CodeRuntimeUnreachable) {
		return err
	}
	return s.embed(ctx, operatorByPeer)
}

func (s *operatorSession) dial(ctx context.Context, endpoint, token string) error {
	c, err := dial(ctx, endpoint, token)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.client
	s.client = c
	s.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	return nil
}

// embed starts a runtime on the home inside this process, for as long as the session lasts.
func (s *operatorSession) embed(ctx context.Context, token string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	host, err := runtime.Open(ctx, runtime.Options{Home: s.home, CLIPath: self, Environ: s.env.environ(), Version: Version, Log: s.logw, OneShot: s.o.oneShot, AppServer: s.o.appServer})
	if err != nil {
		if model.IsCode(err, model.CodeFailedPrecondition) {
			// A runtime holds the home (it took it meanwhile, or did not answer in time): use
			// it, or say why it cannot be used rather than that it exists.
			derr := s.dial(ctx, api.HomeSocket(s.home), token)
			if derr == nil || errors.Is(err, runtime.ErrHeld) {
				return derr
			}
		}
		return err
	}
	serveCtx, stop := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = host.Serve(serveCtx)
	}()
	s.mu.Lock()
	s.host = host
	s.stop = func() {
		stop()
		_ = host.Close()
		<-served
	}
	s.mu.Unlock()
	if err := s.dial(ctx, host.Endpoints()[0], token); err != nil {
		s.closeHost()
		return err
	}
	return nil
}

func (s *operatorSession) closeHost() {
	s.mu.Lock()
	stop := s.stop
	s.stop, s.host = nil, nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Close ends the connection and, when it embedded one, the runtime.
func (s *operatorSession) Close() {
	s.mu.Lock()
	c := s.client
	s.client = nil
	s.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
	s.closeHost()
}

// embedded reports whether this session runs the runtime itself.
func (s *operatorSession) embedded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.host != nil
}

func (s *operatorSession) current() *api.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// Call runs one method on the current connection.
func (s *operatorSession) Call(ctx context.Context, method string, params, out any) error {
	c := s.current()
	if c == nil {
		return model.Errorf(model.CodeRuntimeUnreachable, "wait for the app to reconnect", "not connected to the runtime")
	}
	return s.hinted(c.Call(ctx, method, params, out))
}

// CallEvents is Call, handing fn the call's own events (the fleet's per-host progress).
func (s *operatorSession) CallEvents(ctx context.Context, method string, params, out any, fn func(api.Event)) error {
	c := s.current()
	if c == nil {
		return model.Errorf(model.CodeRuntimeUnreachable, "wait for the app to reconnect", "not connected to the runtime")
	}
	return s.hinted(c.CallEvents(ctx, method, params, out, fn))
}

// hinted is err with hints the caller can run: the operator's own client needs --operator on
// the thread commands a hint names; a client token runs them as they are.
func (s *operatorSession) hinted(err error) error {
	s.mu.Lock()
	local := s.local
	s.mu.Unlock()
	if !local {
		return err
	}
	return opview.ForOperator(err)
}

func (s *operatorSession) endpoint() string {
	if c := s.current(); c != nil {
		return c.Endpoint()
	}
	return ""
}

func (s *operatorSession) clientName() string {
	if c := s.current(); c != nil {
		return c.Caller().Client
	}
	return ""
}

func (s *operatorSession) subscribe(ctx context.Context) (<-chan api.Event, error) {
	c := s.current()
	if c == nil {
		return nil, model.Errorf(model.CodeRuntimeUnreachable, "", "not connected to the runtime")
	}
	return c.Events(ctx)
}
