// Package nodeserve is what this runtime answers as a paired node: a gateway that holds a
// node token of this runtime (a client marked node in config.toml) reads this machine's
// Codex sessions through versioned commands and, when it is allowed to, resumes one with
// `codex exec resume`. A node token reaches nothing else of this runtime.
package nodeserve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/route"
)

// Node command limits.
const (
	nodeListMax       = 100      // rows per threads.list page: the App Server's own cap
	nodeTurnsMax      = 50       // turns per turns.list page: a continue reads one page of 50
	nodePageBytes     = 20 << 20 // items of a turns page; larger pages never cross the wire
	nodePromptBytes   = 1 << 20  // one resume prompt
	nodeResumeTimeout = 30 * time.Minute
	nodeFinalBytes    = 4 << 20 // final text read back from codex exec
)

// Native is the App Server this node reads, and the threads it runs a turn on now.
type Native interface {
	Client(ctx context.Context) (*appserver.Client, error)
	Active() []model.ThreadID
}

// Options are the node's narrow dependencies.
type Options struct {
	Native  Native
	Config  func() *config.Config // NodeAdvertised, CodexBin
	Lookup  func(string) string   // the runtime's environment, to locate codex
	Home    string
	Version string
	Now     func() time.Time
}

// Server answers node.describe and node.invoke.
type Server struct {
	opts Options

	mu      sync.Mutex
	resumes map[string]bool // threads a resume runs on: overlapping resumes of one thread are refused
	env     []string        // environment of `codex exec resume` (the App Server's whitelist)
}

// New makes the node side of a runtime.
func New(opts Options) *Server { return &Server{opts: opts, resumes: map[string]bool{}} }

// SetEnv sets the environment of `codex exec resume`: the App Server's whitelist, known once
// the harnesses start.
func (h *Server) SetEnv(env []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.env = env
}

// Routes are the node methods, for node tokens alone.
func (h *Server) Routes() []route.Route {
	return []route.Route{
		route.Spec[struct{}]{Method: api.MethodNodeDescribe, Policy: route.NodesOnly,
			Call: func(context.Context, route.Env, struct{}) (any, error) {
				return api.NodeDescribeResult{Version: h.opts.Version, Commands: h.opts.Config().NodeAdvertised()}, nil
			}}.Route(),
		route.Spec[api.NodeInvokeParams]{Method: api.MethodNodeInvoke, Policy: route.NodesOnly,
			Call: func(ctx context.Context, _ route.Env, p api.NodeInvokeParams) (any, error) { return h.invoke(ctx, p) }}.Route(),
	}
}

func decodeCommand[P any](ctx context.Context, raw json.RawMessage, fn func(context.Context, P) (any, error)) (any, error) {
	var p P
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, model.Errorf(model.CodeInvalidArgument, "check the request fields", "malformed parameters: %v", err)
		}
	}
	return fn(ctx, p)
}

func (h *Server) invoke(ctx context.Context, p api.NodeInvokeParams) (any, error) {
	if !slices.Contains(h.opts.Config().NodeAdvertised(), p.Command) {
		return nil, model.Errorf(model.CodeFailedPrecondition, "call node.describe for the commands this node offers",
			"this node does not offer %q", p.Command)
	}
	switch p.Command {
	case api.NodeCmdThreadsList:
		return decodeCommand(ctx, p.Params, h.threadsList)
	case api.NodeCmdTurnsList:
		return decodeCommand(ctx, p.Params, h.turnsList)
	case api.NodeCmdSessionResume:
		return decodeCommand(ctx, p.Params, h.sessionResume)
	}
	return nil, model.Errorf(model.CodeInvalidArgument, "", "unknown node command %q", p.Command)
}

// nodeError is the node's answer for a failed App Server call. An answer about a thread
// (an RPC error) travels in details so the gateway can tell "no such thread" apart; the
// gateway never shows it to its own callers.
func nodeError(err error) error {
	var rpc *appserver.RPCError
	if errors.As(err, &rpc) {
		return model.Errorf(model.CodeNodeInvokeFailed, "check the thread id and the request", "the node's Codex App Server refused the request").
			WithDetail(api.NodeDetailRPCCode, rpc.Code).WithDetail(api.NodeDetailRPCMessage, rpc.Message)
	}
	return model.Errorf(model.CodeNodeInvokeFailed, "check the node's Codex installation and its runtime log", "the node's Codex App Server is unavailable")
}

// nodeThreadsPage is what threads.list passes on: the catalog's projection fields of each
// thread and nothing else (no previews, paths, remotes or SHAs leave the node).
type nodeThreadsPage struct {
	Data       []catalog.ListedThread `json:"data"`
	NextCursor *string                `json:"nextCursor"`
}

func (h *Server) threadsList(ctx context.Context, p api.NodeThreadsListParams) (any, error) {
	if p.Limit < 1 || p.Limit > nodeListMax {
		return nil, model.Errorf(model.CodeInvalidArgument, "give a limit from 1 to 100", "invalid limit %d", p.Limit)
	}
	switch p.SortDirection {
	case "", "asc", "desc":
	default:
		return nil, model.Errorf(model.CodeInvalidArgument, "use asc or desc", "invalid sortDirection %q", p.SortDirection)
	}
	c, err := h.opts.Native.Client(ctx)
	if err != nil {
		return nil, nodeError(err)
	}
	q := appserver.ThreadListParams{Cursor: p.Cursor, Limit: p.Limit, Archived: appserver.Unarchived(), UseStateDBOnly: true, SortDirection: p.SortDirection}
	listed, err := appserver.ListThreadsAs[catalog.ListedThread](ctx, c, q)
	if err != nil {
		return nil, nodeError(err)
	}
	page := nodeThreadsPage{Data: listed.Data, NextCursor: listed.NextCursor}
	if page.Data == nil {
		page.Data = []catalog.ListedThread{}
	}
	return page, nil
}

func (h *Server) turnsList(ctx context.Context, p api.NodeTurnsListParams) (any, error) {
	if _, err := model.ParseThreadID(p.ThreadID); err != nil {
		return nil, err
	}
	if p.Limit < 1 || p.Limit > nodeTurnsMax {
		return nil, model.Errorf(model.CodeInvalidArgument, "give a limit from 1 to 50", "invalid limit %d", p.Limit)
	}
	q := appserver.TurnsListParams{ThreadID: p.ThreadID, Cursor: p.Cursor, Limit: p.Limit, ItemsView: cmp.Or(p.ItemsView, "summary"), SortDirection: cmp.Or(p.SortDirection, "desc")}
	c, err := h.opts.Native.Client(ctx)
	if err != nil {
		return nil, nodeError(err)
	}
	raw, err := c.TurnsListRaw(ctx, q)
	if err != nil {
		return nil, nodeError(err)
	}
	// The page crosses the wire only when it is bounded; the gateway checks again.
	if len(raw) > nodePageBytes {
		return nil, model.Errorf(model.CodeFailedPrecondition, "read the thread on the node itself",
			"the transcript page takes %d bytes, more than the %d allowed", len(raw), nodePageBytes)
	}
	return raw, nil
}

// nodeSessionResume runs one turn of the exact native thread with `codex exec resume`, the
// prompt on stdin, under the node's own Codex configuration, and returns the final text.
// Overlapping resumes of one thread are refused here; other Codex clients are the
// operator's to avoid.
func (h *Server) sessionResume(ctx context.Context, p api.NodeSessionResumeParams) (any, error) {
	id, err := model.ParseThreadID(p.ThreadID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return nil, model.Errorf(model.CodeInvalidArgument, "give the message text", "the prompt is empty")
	}
	if len(p.Prompt) > nodePromptBytes {
		return nil, model.Errorf(model.CodeInvalidArgument, "send a shorter message", "the prompt takes %d bytes, more than %d", len(p.Prompt), nodePromptBytes)
	}
	c, err := h.opts.Native.Client(ctx)
	if err != nil {
		return nil, nodeError(err)
	}
	// Only an unarchived, interactive thread that is not running here is resumed.
	th, err := c.ThreadRead(ctx, string(id))
	if err != nil {
		return nil, nodeError(err)
	}
	switch {
	case th.Path != nil && strings.Contains(*th.Path, "archived_sessions"):
		return nil, model.Errorf(model.CodeFailedPrecondition, "unarchive it on the node first", "thread %s is archived", id)
	case th.Ephemeral:
		return nil, model.Errorf(model.CodeFailedPrecondition, "ephemeral threads cannot be resumed", "thread %s is ephemeral", id)
	case th.Status.Type == appserver.StatusActive || slices.Contains(h.opts.Native.Active(), id):
		return nil, model.Errorf(model.CodeThreadBusy, "wait until its turn ends", "thread %s is active on the node", id)
	}

	n := h
	n.mu.Lock()
	if n.resumes[string(id)] {
		n.mu.Unlock()
		return nil, model.Errorf(model.CodeThreadBusy, "wait until the running turn ends", "a resume of thread %s runs on this node", id)
	}
	n.resumes[string(id)] = true
	env := n.env
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.resumes, string(id))
		n.mu.Unlock()
	}()

	text, err := h.runExecResume(ctx, id, th.Cwd, p.Prompt, env)
	if err != nil {
		return nil, err
	}
	return api.NodeSessionResumeResult{ThreadID: string(id), FinalText: text}, nil
}

// runExecResume runs `codex exec resume <thread> -` in the thread's directory (the node's
// home directory when it is gone) and reads the final message from a 0600 file.
func (h *Server) runExecResume(ctx context.Context, id model.ThreadID, cwd, prompt string, env []string) (string, error) {
	bin, err := appserver.Locate(appserver.Search{Configured: h.opts.Config().CodexBin, Getenv: h.opts.Lookup, Home: h.opts.Home, Dir: appserver.SearchDir(h.opts.Version)})
	if err != nil {
		return "", nodeError(err)
	}
	dir, err := os.MkdirTemp(filepath.Join(h.opts.Home, "logs"), "resume-")
	if err != nil {
		return "", model.Errorf(model.CodeInternal, "check the node's home directory", "prepare the resume: %v", err)
	}
	defer os.RemoveAll(dir)
	last := filepath.Join(dir, "last-message.txt")
	ctx, cancel := context.WithTimeout(ctx, nodeResumeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "resume", "--skip-git-repo-check", "--output-last-message", last, string(id), "-")
	cmd.Env = env
	cmd.Dir = h.opts.Home
	if st, err := os.Stat(cwd); cwd != "" && err == nil && st.IsDir() {
		cmd.Dir = cwd
	}
	cmd.Stdin = strings.NewReader(prompt)
	logFile, err := os.OpenFile(filepath.Join(h.opts.Home, "logs", "node-resume.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err == nil {
		defer logFile.Close()
		fmt.Fprintf(logFile, "--- %s resume %s\n", h.opts.Now().UTC().Format(time.RFC3339), id)
		cmd.Stderr = logFile
	}
	harness.DieWithParent(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", model.Errorf(model.CodeNodeInvokeFailed, "retry; a turn runs at most 30 minutes", "the resumed turn of thread %s did not finish", id)
		}
		return "", model.Errorf(model.CodeNodeInvokeFailed, "see logs/node-resume.log in the node's home",
			"codex exec resume of thread %s failed (%s)", id, exitReason(err))
	}
	f, err := os.Open(last)
	if err != nil {
		return "", model.Errorf(model.CodeNodeInvokeFailed, "see logs/node-resume.log in the node's home", "the resumed turn of thread %s gave no final message", id)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, nodeFinalBytes))
	if err != nil {
		return "", model.Errorf(model.CodeNodeInvokeFailed, "retry", "read the final message of thread %s: %v", id, err)
	}
	return strings.TrimRight(string(b), "\n"), nil
}

func exitReason(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ProcessState.String()
	}
	return "could not start"
}
