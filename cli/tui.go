package cli

import (
	"context"
	"errors"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/codexhost/codexhost/internal/termbg"
	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
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
	cmd.PersistentFlags().BoolVar(&f.noColor, "no-color", false, "no colours in the terminal app and the tables (also NO_COLOR or CODEXHOST_NO_COLOR)")
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
	home, err := homeDir(cmd.Context())
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
	noColor := themes.NoColorRequested(f.noColor, envOf(cmd.Context()).get)
	if noColor {
		r.SetColorProfile(termenv.Ascii)
	}
	dark, _ := themes.DarkBackground(pal, noColor || r.ColorProfile() == termenv.Ascii, envOf(cmd.Context()).get,
		func() (bool, bool) { return termbg.AskDark(os.Stdin, os.Stdout, termbg.Timeout) })
	r.SetHasDarkBackground(dark)

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
	// Focus reports let the fleet read its pages again when the terminal comes back to front;
	// cell-motion mouse reports carry clicks and the wheel (ui/mouse.go).
	p := tea.NewProgram(app, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithReportFocus(), tea.WithMouseCellMotion())
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
		return km, keysError(home, err)
	}
	return km, nil
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
	_, err := api.GetRuntimeInfo.Call(cctx, c, struct{}{})
	return err
}

// reconnect keeps a connection that still answers (the event stream alone was cut off) and
// otherwise connects as at start, embedding a runtime when the one that held the home is gone.
func (s *operatorSession) reconnect(ctx context.Context) (<-chan api.Event, error) {
	if c := s.current(); c != nil {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := api.GetRuntimeInfo.Call(cctx, c, struct{}{})
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
