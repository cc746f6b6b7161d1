package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// The compat tools of the legacy supervisor, over the catalog's local hosts (the tools call
// them endpoints). Loaded means loaded in the host's own App Server process (for
// gateway:local the native harness's): a thread that another Codex client runs is notLoaded
// here and cannot be steered or interrupted from here. Nothing here resumes or starts a
// thread, nor acts on a turn: it finds the running turn that send steers and interrupt stops
// (runtime/supervise, OnRunningTurn).
// The caller's policy is decided by the runtime before any of these is called.

const (
	compatListHint = "list the sessions with `codexhost compat sessions-list` (add --include-stored for stored ones)"
	// compatIdleHint: an idle session is continued through the catalog, where the full
	// harness owns approvals, tools and the binding.
	compatIdleHint = "compat send and interrupt act only on a running turn; continue an idle or stored session through the catalog (`codexhost continue T`), or message an idle codexhost thread with `codexhost thread send T`"
	// maxLoadedPages bounds thread/loaded/list paging against a cursor that never ends.
	maxLoadedPages = 100
	// maxPreviewRunes bounds a preview (the first user message, which may be any length).
	maxPreviewRunes = 1000
)

// compatHosts resolves the endpoint of a probe or list ("" is every local host).
func (c *Catalog) compatHosts(endpoint string) ([]*host, error) {
	if endpoint == "" {
		var out []*host
		for _, h := range c.hosts {
			if !IsNodeHost(h.spec.ID) {
				out = append(out, h)
			}
		}
		return out, nil
	}
	h, err := c.compatHost(endpoint)
	if err != nil {
		return nil, err
	}
	return []*host{h}, nil
}

// compatHost resolves the endpoint of a one-thread tool ("" is gateway:local). Paired nodes
// are not endpoints: their threads are reached only through the catalog's node commands.
func (c *Catalog) compatHost(endpoint string) (*host, error) {
	if IsNodeHost(endpoint) {
		return nil, model.Errorf(model.CodeInvalidArgument, "use a local endpoint (`codexhost hosts` lists them)",
			"endpoint %s is a paired node; the compat tools serve local Codex homes only", quoteArg(endpoint))
	}
	return c.host(endpoint)
}

// perHost runs fn for each host at once, each bounded by the host timeout, and keeps the
// results in host order.
func perHost[T any](ctx context.Context, c *Catalog, hosts []*host, fn func(outer, hctx context.Context, h *host) T) []T {
	out := make([]T, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
			defer cancel()
			out[i] = fn(ctx, hctx, h)
		}()
	}
	wg.Wait()
	return out
}

// CompatProbe reaches each endpoint's App Server (starting it if needed) and reports its
// Codex version and how many threads it has loaded.
func (c *Catalog) CompatProbe(ctx context.Context, p api.CompatProbeParams) (api.CompatProbeResult, error) {
	hosts, err := c.compatHosts(p.Endpoint)
	if err != nil {
		return api.CompatProbeResult{}, err
	}
	eps := perHost(ctx, c, hosts, func(outer, hctx context.Context, h *host) api.CompatEndpoint {
		ep := api.CompatEndpoint{Endpoint: h.spec.ID, Default: h.spec.Default}
		conn, err := c.conn(outer, hctx, h)
		if err != nil {
			ep.Error = model.AsError(err)
			return ep
		}
		ids, err := loadedIDs(hctx, conn)
		if err != nil {
			ep.Error = c.hostFailed(outer, h, err)
			return ep
		}
		h.succeeded(c.opts.Now())
		n := len(ids)
		ep.OK, ep.LoadedSessions, ep.CodexVersion = true, &n, codexVersion(conn.Info().UserAgent)
		return ep
	})
	return api.CompatProbeResult{Endpoints: eps}, nil
}

// codexVersion takes the version out of the App Server's user agent
// ("codexhost/0.169.0 (Debian 12.0.0; x86_64) …"): the rest names the machine.
func codexVersion(ua string) string {
	product, _, _ := strings.Cut(ua, " ")
	_, v, ok := strings.Cut(product, "/")
	if !ok {
		return ""
	}
	return cleanLine(v, 40)
}

// loadedIDs pages thread/loaded/list: the threads loaded in this App Server process.
func loadedIDs(ctx context.Context, conn Conn) ([]string, error) {
	var ids []string
	cursor := ""
	for range maxLoadedPages {
		res, err := appserver.On(conn).ThreadLoadedPage(ctx, cursor)
		if err != nil {
			return nil, err
		}
		ids = append(ids, res.Data...)
		if res.NextCursor == nil || *res.NextCursor == "" || *res.NextCursor == cursor || len(res.Data) == 0 {
			break
		}
		cursor = *res.NextCursor
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// compatRow projects a thread of thread/read or thread/list as the compat tools show it;
// ok is false for what the catalog never shows. The preview is decoded only when raw.
func compatRow(raw json.RawMessage, loaded, withPreview bool) (api.CompatSession, bool, error) {
	var t ListedThread
	if err := json.Unmarshal(raw, &t); err != nil {
		return api.CompatSession{}, false, err
	}
	r, ok := project(t)
	if !ok {
		return api.CompatSession{}, false, nil
	}
	s := api.CompatSession{CatalogSession: r.s, Loaded: loaded}
	if withPreview {
		var pv struct {
			Preview string `json:"preview"`
		}
		if err := json.Unmarshal(raw, &pv); err != nil {
			return api.CompatSession{}, false, err
		}
		s.Preview = boundRunes(pv.Preview, maxPreviewRunes)
	}
	return s, true, nil
}

func boundRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// readRaw is thread/read (no turns) with the thread kept raw.
func readRaw(ctx context.Context, conn Conn, id string) (json.RawMessage, error) {
	return appserver.ReadThreadAs[json.RawMessage](ctx, conn, id)
}

// CompatList lists each endpoint's loaded sessions and, with include, up to storedCap stored
// unarchived ones that are not loaded. Loaded rows are never capped. Endpoints fail alone.
func (c *Catalog) CompatList(ctx context.Context, endpoint string, include bool, storedCap int, withPreview bool) (api.CompatSessionsListResult, error) {
	hosts, err := c.compatHosts(endpoint)
	if err != nil {
		return api.CompatSessionsListResult{}, err
	}
	eps := perHost(ctx, c, hosts, func(outer, hctx context.Context, h *host) api.CompatEndpointSessions {
		res, err := c.compatListHost(outer, hctx, h, include, storedCap, withPreview)
		if err != nil {
			return api.CompatEndpointSessions{Endpoint: h.spec.ID, Sessions: []api.CompatSession{}, Error: model.AsError(err)}
		}
		return res
	})
	return api.CompatSessionsListResult{Endpoints: eps, RawTranscripts: withPreview}, nil
}

func (c *Catalog) compatListHost(outer, hctx context.Context, h *host, include bool, storedCap int, withPreview bool) (api.CompatEndpointSessions, error) {
	out := api.CompatEndpointSessions{Endpoint: h.spec.ID, Sessions: []api.CompatSession{}}
	conn, err := c.conn(outer, hctx, h)
	if err != nil {
		return out, err
	}
	ids, err := loadedIDs(hctx, conn)
	if err != nil {
		return out, c.hostFailed(outer, h, err)
	}
	loaded := make(map[string]bool, len(ids))
	for _, id := range ids {
		loaded[id] = true
		raw, err := readRaw(hctx, conn, id)
		switch {
		case err == nil:
		case isHostFailure(err):
			return out, c.hostFailed(outer, h, err)
		default:
			// Unloaded or gone since it was listed (or not readable): not a loaded session now.
			fmt.Fprintf(c.opts.Log, "catalog: host %s: compat read of loaded %s: %v\n", h.spec.ID, id, err)
			continue
		}
		s, ok, err := compatRow(raw, true, withPreview)
		if err != nil {
			return out, c.hostFailed(outer, h, err)
		}
		if ok {
			out.Sessions = append(out.Sessions, s)
		}
	}
	slices.SortStableFunc(out.Sessions, func(a, b api.CompatSession) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	if include {
		out.StoredCap = storedCap
		stored, truncated, err := c.compatStored(hctx, conn, loaded, storedCap, withPreview)
		if err != nil {
			return out, c.hostFailed(outer, h, err)
		}
		out.Sessions, out.StoredTruncated = append(out.Sessions, stored...), truncated
	}
	h.succeeded(c.opts.Now())
	return out, nil
}

// compatStored pages the unarchived stored threads, newest first, skipping loaded ones,
// until limit rows. truncated is true when a further row exists, or may: the page bound
// stopped the walk first.
func (c *Catalog) compatStored(ctx context.Context, conn Conn, loaded map[string]bool, limit int, withPreview bool) (rows []api.CompatSession, truncated bool, err error) {
	// Loaded and non-interactive threads take room in pages without making rows.
	maxPages := (limit+len(loaded))/NativePageSize + 10
	pager := appserver.NewThreadPager[json.RawMessage](conn, storedThreads("", 0))
	for !pager.Done() && pager.Pages() < maxPages {
		pager.SetLimit(min(NativePageSize, limit-len(rows)+1+len(loaded)))
		data, err := pager.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		for _, raw := range data {
			var head struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(raw, &head) != nil || loaded[head.ID] {
				continue
			}
			s, ok, err := compatRow(raw, false, withPreview)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
			if len(rows) == limit {
				return rows, true, nil
			}
			rows = append(rows, s)
		}
	}
	return rows, !pager.Done(), nil
}

// compatThread reads one thread for a compat tool: only sessions the compat list can show.
func (c *Catalog) compatThread(outer, hctx context.Context, h *host, conn Conn, id model.ThreadID, withPreview bool) (api.CompatSession, error) {
	raw, err := readRaw(hctx, conn, string(id))
	if err != nil {
		switch {
		case appserver.UnknownThread(err):
			return api.CompatSession{}, model.Errorf(model.CodeThreadNotFound, compatListHint, "no Codex thread %s on endpoint %s", id, h.spec.ID)
		case isHostFailure(err):
			return api.CompatSession{}, c.hostFailed(outer, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: compat read %s: %v\n", h.spec.ID, id, err)
		return api.CompatSession{}, threadRefused("read the thread")
	}
	h.succeeded(c.opts.Now())
	var st struct {
		Status appserver.ThreadStatus `json:"status"`
	}
	_ = json.Unmarshal(raw, &st)
	s, ok, err := compatRow(raw, st.Status.Type != appserver.StatusNotLoaded, withPreview)
	if err != nil {
		return api.CompatSession{}, c.hostFailed(outer, h, err)
	}
	if !ok {
		return api.CompatSession{}, model.Errorf(model.CodeFailedPrecondition, "the compat tools serve the interactive, stored sessions that `codexhost compat sessions-list` shows",
			"thread %s on endpoint %s is ephemeral or not an interactive session", id, h.spec.ID)
	}
	return s, nil
}

// CompatRead returns a session (with its preview) and one page of its turns.
func (c *Catalog) CompatRead(ctx context.Context, p api.CompatSessionReadParams) (api.CompatSessionReadResult, error) {
	h, err := c.compatHost(p.Endpoint)
	if err != nil {
		return api.CompatSessionReadResult{}, err
	}
	id, err := model.ParseThreadID(p.Thread)
	if err != nil {
		return api.CompatSessionReadResult{}, err
	}
	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	defer cancel()
	conn, err := c.conn(ctx, hctx, h)
	if err != nil {
		return api.CompatSessionReadResult{}, err
	}
	s, err := c.compatThread(ctx, hctx, h, conn, id, true)
	if err != nil {
		return api.CompatSessionReadResult{}, err
	}
	tr, err := c.Transcript(ctx, api.CatalogTranscriptParams{Thread: string(id), Host: h.spec.ID, Cursor: p.Cursor})
	if err != nil {
		return api.CompatSessionReadResult{}, compatCursorErr(err)
	}
	out := api.CompatSessionReadResult{Endpoint: h.spec.ID, Session: s, Turns: tr.Turns, OlderCursor: tr.OlderCursor, NewerCursor: tr.NewerCursor}
	if s.Status == model.ThreadActive && p.Cursor == "" && len(tr.Turns) > 0 {
		if last := tr.Turns[len(tr.Turns)-1]; last.Status == appserver.TurnInProgress {
			out.ActiveTurnID = last.ID
		}
	}
	return out, nil
}

// compatCursorHint replaces the transcript command's hint on a refused cursor: a compat
// caller (often an agent) pages with session-read, and may not run `codexhost transcript`.
const compatCursorHint = "pass the olderCursor or newerCursor of an earlier `codexhost compat session-read` (codex_session_read) " +
	"of the same session and endpoint, or no cursor for the newest turns"

func compatCursorErr(err error) error {
	var e *model.Error
	if errors.As(err, &e) && e.Hint == transcriptCursorHint {
		c := *e
		c.Hint = compatCursorHint
		return &c
	}
	return err
}

// activeTurn finds the running turn of a session loaded in the host's App Server: the thread
// is active there and its newest stored turn is in progress. Anything else is refused, so
// that a send or interrupt never acts on an idle thread, nor on one another client runs.
func (c *Catalog) activeTurn(outer, hctx context.Context, h *host, conn Conn, id model.ThreadID, expected string) (string, error) {
	s, err := c.compatThread(outer, hctx, h, conn, id, false)
	if err != nil {
		return "", err
	}
	switch s.Status {
	case model.ThreadActive:
	case model.ThreadNotLoaded:
		return "", model.Errorf(model.CodeFailedPrecondition, compatIdleHint,
			"thread %s is not loaded in endpoint %s's App Server: it has no turn running here (another Codex client's turn cannot be reached from here)", id, h.spec.ID).
			WithDetail("status", s.Status)
	default:
		return "", model.Errorf(model.CodeFailedPrecondition, compatIdleHint,
			"thread %s on endpoint %s is %s, not running a turn; compat tools never start or resume a thread", id, h.spec.ID, s.Status).
			WithDetail("status", s.Status)
	}
	res, err := c.turnsList(hctx, conn, appserver.TurnsListParams{ThreadID: string(id), Limit: 1, ItemsView: "notLoaded", SortDirection: "desc"})
	if err != nil {
		if isHostFailure(err) {
			return "", c.hostFailed(outer, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: compat turns of %s: %v\n", h.spec.ID, id, err)
		return "", model.Errorf(model.CodeFailedPrecondition, "retry once the turn shows in `codexhost compat session-read`", "the running turn of thread %s cannot be read yet", id)
	}
	if len(res.Data) == 0 || res.Data[0].Status != appserver.TurnInProgress {
		return "", model.Errorf(model.CodeFailedPrecondition, compatIdleHint, "thread %s has no readable running turn", id)
	}
	turn := res.Data[0].ID
	if expected != "" && expected != turn {
		return "", model.Errorf(model.CodeFailedPrecondition, "read the session again (`codexhost compat session-read`) and pass its activeTurnId",
			"the running turn of thread %s is %s, not the expected %s", id, turn, quoteArg(expected)).WithDetail("turnId", turn)
	}
	return turn, nil
}

// turnGone recognises the App Server's ways of saying the turn ended meanwhile.
func turnGone(err error) bool {
	return appserver.RPCHas(err, "no active turn") || appserver.RPCHas(err, "expected active turn id")
}

// RunningTurn is the running turn of a session loaded in a local host's App Server, where a
// send or an interrupt acts (runtime/supervise writes them; the catalog only finds the turn).
type RunningTurn struct {
	Endpoint string
	Thread   model.ThreadID
	Turn     string
}

// OnRunningTurn finds the session's running turn (expected, when not "", must be it) and
// calls act with the host's connection, within the host timeout. act names its call in what
// ("steer", "interrupt") and may return the turn it now runs on ("" keeps Turn). Every case
// that is not a readable running turn is refused before act runs.
func (c *Catalog) OnRunningTurn(ctx context.Context, endpoint, thread, expected, what string,
	act func(ctx context.Context, conn Conn, t RunningTurn) (string, error)) (RunningTurn, error) {
	h, conn, id, hctx, cancel, err := c.compatTarget(ctx, endpoint, thread)
	if err != nil {
		return RunningTurn{}, err
	}
	defer cancel()
	turn, err := c.activeTurn(ctx, hctx, h, conn, id, expected)
	if err != nil {
		return RunningTurn{}, err
	}
	t := RunningTurn{Endpoint: h.spec.ID, Thread: id, Turn: turn}
	now, err := act(hctx, conn, t)
	if err != nil {
		return RunningTurn{}, c.turnCallErr(ctx, h, id, what, err)
	}
	if now != "" {
		t.Turn = now
	}
	return t, nil
}

// compatTarget resolves the endpoint and thread of a send or interrupt and connects.
func (c *Catalog) compatTarget(ctx context.Context, endpoint, thread string) (*host, Conn, model.ThreadID, context.Context, context.CancelFunc, error) {
	h, err := c.compatHost(endpoint)
	if err != nil {
		return nil, nil, "", nil, nil, err
	}
	id, err := model.ParseThreadID(thread)
	if err != nil {
		return nil, nil, "", nil, nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	conn, err := c.conn(ctx, hctx, h)
	if err != nil {
		cancel()
		return nil, nil, "", nil, nil, err
	}
	return h, conn, id, hctx, cancel, nil
}

func (c *Catalog) turnCallErr(ctx context.Context, h *host, id model.ThreadID, what string, err error) error {
	switch {
	case turnGone(err):
		return model.Errorf(model.CodeFailedPrecondition, compatIdleHint, "the turn of thread %s ended before the %s arrived", id, what)
	case isHostFailure(err):
		return c.hostFailed(ctx, h, err)
	}
	fmt.Fprintf(c.opts.Log, "catalog: host %s: compat %s %s: %v\n", h.spec.ID, what, id, err)
	return threadRefused(what + " the turn")
}
