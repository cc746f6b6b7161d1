package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/themes"
	"github.com/codexhost/codexhost/ui"
)

// tuiFlags are the bare command's own flags.
type tuiFlags struct {
	theme   string
	noColor bool
}

func (f *tuiFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.theme, "theme", themes.Auto, "colour theme of the terminal app: auto (follows the terminal's background), dark, light or high-contrast")
	cmd.Flags().BoolVar(&f.noColor, "no-color", false, "no colours in the terminal app (also NO_COLOR or CODEXHOST_NO_COLOR)")
}

// runTUI starts the terminal app on the home's runtime: it attaches to the runtime holding
// the home, or embeds one for as long as the app runs.
func runTUI(cmd *cobra.Command, f tuiFlags) error {
	pal, err := themes.ByName(f.theme)
	if err != nil {
		return model.Errorf(model.CodeInvalidArgument, "pass --theme with one of the names listed", "%v", err)
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return model.Errorf(model.CodeInvalidArgument, "run it in a terminal, or use a subcommand (`codexhost --help` lists them)",
			"the terminal app needs a terminal on stdin and stdout")
	}
	home, err := homeDir()
	if err != nil {
		return err
	}
	km, err := loadKeymap(home)
	if err != nil {
		return err
	}

	// Colour profile and background are settled before the program owns the terminal: a
	// query afterwards would compete with it for stdin.
	r := lipgloss.DefaultRenderer()
	if themes.NoColorRequested(f.noColor, os.Getenv) {
		r.SetColorProfile(termenv.Ascii)
	}
	switch pal.Name {
	case themes.DarkName:
		r.SetHasDarkBackground(true)
	case themes.LightName:
		r.SetHasDarkBackground(false)
	default:
		if r.ColorProfile() != termenv.Ascii {
			r.SetHasDarkBackground(termenv.HasDarkBackground())
		}
	}

	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	logw, closeLog := runtimeLog(home, "runtime-app.log")
	defer closeLog()
	sess, err := openOperator(ctx, home, operatorCommand{}, logw)
	if err != nil {
		return err
	}
	defer sess.Close()
	// Subscribed before the program runs, so nothing that happens while it starts is missed.
	events, err := sess.subscribe(ctx)
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	app := ui.New(ui.Options{
		Context: ctx, Runtime: sess, Keys: km, Styles: themes.New(r, pal), Profile: r.ColorProfile(),
		Endpoint: sess.endpoint(), Client: sess.clientName(), Cwd: cwd,
		Timeout: 15 * time.Second, Grace: 400 * time.Millisecond, Debounce: 120 * time.Millisecond, Reconcile: ui.ReconcileEvery,
		Embedded: sess.embedded,
	})
	// Focus reports let the fleet read its pages again when the terminal comes back to front.
	p := tea.NewProgram(app, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithReportFocus())
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		sess.relay(ctx, events, p.Send)
	}()
	_, err = p.Run()
	cancel()
	<-relayDone
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	return nil
}

// loadKeymap is the default keymap with config.toml's [keys] applied.
func loadKeymap(home string) (keymap.KeyMap, error) {
	km := keymap.Default()
	cfg, err := config.Load(home)
	if err != nil {
		return km, err
	}
	if err := keymap.Apply(&km, cfg.Keys); err != nil {
		return km, model.Errorf(model.CodeInvalidArgument, "fix or remove these entries in "+filepath.Join(home, config.FileName), "%v", err)
	}
	return km, nil
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

	mu     sync.Mutex
	client *api.Client
	host   *runtime.Host
	stop   func()
}

func openOperator(ctx context.Context, home string, o operatorCommand, logw io.Writer) (*operatorSession, error) {
	if logw == nil {
		logw = io.Discard
	}
	s := &operatorSession{home: home, o: o, logw: logw}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *operatorSession) connect(ctx context.Context) error {
	if endpoint, token := os.Getenv(harness.EnvEndpoint), os.Getenv(harness.EnvToken); endpoint != "" || token != "" {
		if endpoint == "" || token == "" {
			return model.Errorf(model.CodeRuntimeUnreachable, "run the command inside a codexhost harness, which sets both "+harness.EnvEndpoint+" and "+harness.EnvToken, "incomplete host connection parameters")
		}
		return s.dial(ctx, endpoint, token)
	}
	socket := "unix://" + filepath.Join(s.home, runtime.SocketName)
	token := s.o.clientToken
	if token == "" {
		token = os.Getenv(envClientToken)
	}
	if token != "" {
		ep := s.o.endpoint
		if ep == "" {
			ep = os.Getenv(envEndpoint)
		}
		if ep == "" {
			ep = socket
		}
		return s.dial(ctx, ep, token)
	}
	s.local = true
	token, err := localOperatorToken(s.home)
	if err != nil {
		return err
	}
	err = s.dial(ctx, socket, token)
	if err == nil || !model.IsCode(err, model.CodeRuntimeUnreachable) {
		return err
	}
	return s.embed(ctx, token)
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
	host, err := runtime.Open(ctx, runtime.Options{Home: s.home, CLIPath: self, Environ: os.Environ(), Version: Version, Log: s.logw})
	if err != nil {
		if model.IsCode(err, model.CodeFailedPrecondition) {
			// Another runtime took the home meanwhile: use it.
			if derr := s.dial(ctx, "unix://"+filepath.Join(s.home, runtime.SocketName), token); derr == nil {
				return nil
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
	return c.Call(ctx, method, params, out)
}

// CallEvents is Call, handing fn the call's own events (the fleet's per-host progress).
func (s *operatorSession) CallEvents(ctx context.Context, method string, params, out any, fn func(api.Event)) error {
	c := s.current()
	if c == nil {
		return model.Errorf(model.CodeRuntimeUnreachable, "wait for the app to reconnect", "not connected to the runtime")
	}
	return c.CallEvents(ctx, method, params, out, fn)
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

// relay hands runtime events to the app until ctx ends. When the stream ends (the runtime
// went away, or the app fell too far behind) it says so, connects again with a growing pause,
// and tells the app, which then reads everything again.
func (s *operatorSession) relay(ctx context.Context, events <-chan api.Event, send func(tea.Msg)) {
	for {
		for ev := range events {
			send(ui.EventMsg(ev))
		}
		if ctx.Err() != nil {
			return
		}
		send(ui.DisconnectedMsg(s.lostReason(ctx)))
		pause := 250 * time.Millisecond
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			var err error
			if events, err = s.reconnect(ctx); err == nil {
				send(ui.ConnectedMsg(s.endpoint()))
				break
			}
			send(ui.DisconnectedMsg(err))
			pause = min(pause*2, 5*time.Second)
		}
	}
}

func (s *operatorSession) lostReason(ctx context.Context) error {
	c := s.current()
	if c == nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return c.Call(cctx, api.MethodRuntimeInfo, nil, nil)
}

// reconnect keeps a connection that still answers (the event stream alone was cut off) and
// otherwise connects as at start, embedding a runtime when the one that held the home is gone.
func (s *operatorSession) reconnect(ctx context.Context) (<-chan api.Event, error) {
	if c := s.current(); c != nil {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.Call(cctx, api.MethodRuntimeInfo, nil, nil)
		cancel()
		if err != nil {
			s.mu.Lock()
			s.client = nil
			s.mu.Unlock()
			_ = c.Close()
			s.closeHost()
			if err := s.connect(ctx); err != nil {
				return nil, err
			}
		}
	} else if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s.subscribe(ctx)
}
