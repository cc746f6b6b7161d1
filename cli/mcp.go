package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/mcp"
)

func newMCPCmd() *cobra.Command {
	var (
		o      operatorCommand
		listen string
	)
	cmd := &cobra.Command{
		Use:   "mcp [--listen 127.0.0.1:PORT] [--client-token T]",
		Short: "Serve handoff, task, skill and compat tools over MCP (stdio, or Streamable HTTP on loopback)",
		Long: "An MCP server over the runtime API. Tools: " + mcpToolNames() + " (dotted names also answer with underscores).\n\n" +
			"Over stdio it acts as the client whose token is given (--client-token or " + envClientToken + "), or else as the home's " +
			"operator client, starting an embedded runtime when none holds the home.\n\n" +
			"With --listen it serves Streamable HTTP at http://ADDR" + mcp.HTTPPath + " on loopback only: every caller sends its own " +
			"client token as `Authorization: Bearer TOKEN` and acts as that client. Register it with Codex as [mcp_servers.codexhost] " +
			"in config.toml (see the README for the approval settings).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if listen != "" {
				return serveMCPHTTP(ctx, cmd, o, listen)
			}
			return serveMCPStdio(ctx, cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.clientToken, "client-token", "", "over stdio: act as this client (or "+envClientToken+"; default: the home's local operator client)")
	f.StringVar(&o.endpoint, "endpoint", "", "runtime endpoint (or "+envEndpoint+"; default: the home's socket)")
	f.StringVar(&listen, "listen", "", "serve Streamable HTTP on this loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT) instead of stdio")
	return cmd
}

func mcpToolNames() string {
	return strings.Join(mcp.ToolNames(), ", ")
}

// mcpLog is where the server logs: never stdout, which carries the protocol.
func mcpLog(home string) (*slog.Logger, io.Writer, func()) {
	w, closeLog := runtimeLog(home, "mcp.log")
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})), w, closeLog
}

func serveMCPStdio(ctx context.Context, cmd *cobra.Command, o operatorCommand) error {
	home, err := homeDir(ctx)
	if err != nil {
		return err
	}
	conn, err := resolveConnection(ctx, o.clientToken, o.endpoint)
	if err != nil {
		return err
	}
	var (
		logger *slog.Logger
		rt     mcp.Runtime
	)
	if conn.Kind == api.ConnHost {
		// A thread's own server (harness/native_threadtools.go): Codex starts it while the
		// thread is being created, before its token is bound, and keeps its stderr. So it
		// connects at the first call and logs there.
		logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
		lazy := &lazySession{open: func(ctx context.Context) (*operatorSession, error) { return openOperator(ctx, home, o, io.Discard) }}
		defer lazy.Close()
		fmt.Fprintln(cmd.ErrOrStderr(), mcp.AgentNotice(conn))
		rt = lazy
	} else {
		var logw io.Writer
		var closeLog func()
		logger, logw, closeLog = mcpLog(home)
		defer closeLog()
		sess, err := openOperator(ctx, home, o, logw)
		if err != nil {
			return err
		}
		defer sess.Close()
		fmt.Fprintln(cmd.ErrOrStderr(), mcp.IdentityNotice(sess.clientName(), home))
		rt = sess
	}
	server := mcp.NewServer(mcp.Options{Version: Version, Logger: logger,
		Runtime: func(context.Context, *sdk.CallToolRequest) (mcp.Runtime, error) { return rt, nil }})
	err = server.Run(ctx, mcp.StdioTransport(cmd.InOrStdin(), cmd.OutOrStdout()))
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// lazySession opens its connection at the first call, and again after a failed open.
type lazySession struct {
	open func(context.Context) (*operatorSession, error)
	mu   sync.Mutex
	sess *operatorSession
}

func (l *lazySession) Call(ctx context.Context, method string, params, out any) error {
	l.mu.Lock()
	if l.sess == nil {
		s, err := l.open(ctx)
		if err != nil {
			l.mu.Unlock()
			return err
		}
		l.sess = s
	}
	s := l.sess
	l.mu.Unlock()
	return s.Call(ctx, method, params, out)
}

func (l *lazySession) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess != nil {
		l.sess.Close()
	}
}

func serveMCPHTTP(ctx context.Context, cmd *cobra.Command, o operatorCommand, addr string) error {
	ln, err := mcp.ListenLoopback(addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	home, err := homeDir(ctx)
	if err != nil {
		return err
	}
	logger, logw, closeLog := mcpLog(home)
	defer closeLog()
	// This connection only finds (or embeds) the runtime; every HTTP session dials it with
	// its own caller's token.
	sess, err := openOperator(ctx, home, o, logw)
	if err != nil {
		return err
	}
	defer sess.Close()
	h := mcp.NewHTTPHandler(mcp.HTTPOptions{Endpoint: sess.endpoint(), Version: Version, Logger: logger})
	defer h.Close()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(cmd.ErrOrStderr(), "codexhost mcp: listening on http://%s%s\n", ln.Addr(), mcp.HTTPPath)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	return nil
}
