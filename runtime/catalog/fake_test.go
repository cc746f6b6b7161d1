package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// fakeConn is an App Server that lists a fixed set of threads, newest first, with cursors
// that are positions, and records every call.
type fakeConn struct {
	mu       sync.Mutex
	threads  []map[string]any // newest first
	calls    []fakeCall
	failList error                           // every thread/list fails with it
	children func(cursor string) listResultJ // descendants pages (ancestorThreadId)
	read     map[string]any                  // thread/read answer
	readErr  error
	archived []string
	turns    func(p turnsParams) (json.RawMessage, error)
	home     string
	// anchored cursors are the creation time of the last row returned, as the App Server's
	// are (time and id), so that threads added or removed above a cursor do not move what it
	// reads; else they are positions. threads must then be ordered by createdAt, newest first.
	anchored bool
	// gate, when set, is called inside every thread/list of threads with the call's cursor
	// once the page is read and before it is answered, so a test can hold a read (of what
	// was there before a change) where it wants.
	gate func(cursor string)
}

type fakeCall struct {
	method string
	params json.RawMessage
}

type listResultJ struct {
	Data       []map[string]any `json:"data"`
	NextCursor *string          `json:"nextCursor"`
}

func (f *fakeConn) Info() appserver.InitializeResult {
	return appserver.InitializeResult{CodexHome: f.home}
}
func (f *fakeConn) Pid() int { return 1 }

func (f *fakeConn) Call(ctx context.Context, method string, params, out any) error {
	raw, _ := json.Marshal(params)
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{method, raw})
	f.mu.Unlock()
	var res any
	switch method {
	case "thread/list":
		var p map[string]any
		_ = json.Unmarshal(raw, &p)
		if f.failList != nil {
			return f.failList
		}
		if a, _ := p["ancestorThreadId"].(string); a != "" {
			c, _ := p["cursor"].(string)
			res = f.children(c)
			break
		}
		cursor, _ := p["cursor"].(string)
		start := 0
		f.mu.Lock()
		// sortDirection asc pages oldest first, as the App Server does.
		asc := p["sortDirection"] == "asc"
		threads := f.threads
		if asc {
			threads = slices.Clone(threads)
			slices.Reverse(threads)
		}
		if cursor != "" && f.anchored {
			after, _ := strconv.Atoi(cursor)
			start = len(threads)
			for i, t := range threads {
				if c := t["createdAt"].(int); (!asc && c < after) || (asc && c > after) {
					start = i
					break
				}
			}
		} else if cursor != "" {
			start, _ = strconv.Atoi(cursor)
		}
		limit := int(p["limit"].(float64))
		end := min(start+limit, len(threads))
		page := listResultJ{Data: append([]map[string]any{}, threads[min(start, end):end]...)}
		if end < len(threads) {
			next := strconv.Itoa(end)
			if f.anchored {
				next = strconv.Itoa(threads[end-1]["createdAt"].(int))
			}
			page.NextCursor = &next
		}
		f.mu.Unlock()
		if f.gate != nil {
			f.gate(cursor)
		}
		res = page
	case "thread/read":
		if f.readErr != nil {
			return f.readErr
		}
		res = map[string]any{"thread": f.read}
	case "thread/archive":
		var p struct {
			ThreadID string `json:"threadId"`
		}
		_ = json.Unmarshal(raw, &p)
		f.mu.Lock()
		f.archived = append(f.archived, p.ThreadID)
		f.mu.Unlock()
		return nil
	case "thread/turns/list":
		var p turnsParams
		_ = json.Unmarshal(raw, &p)
		b, err := f.turns(p)
		if err != nil {
			return err
		}
		return json.Unmarshal(b, out)
	default:
		return fmt.Errorf("fake: unexpected %s", method)
	}
	b, _ := json.Marshal(res)
	return json.Unmarshal(b, out)
}

func (f *fakeConn) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c.method == method {
			n++
		}
	}
	return n
}

func (f *fakeConn) callsOf(method string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, c := range f.calls {
		if c.method == method {
			var p map[string]any
			_ = json.Unmarshal(c.params, &p)
			out = append(out, p)
		}
	}
	return out
}

// fakeThread is a listed thread as the App Server reports it, with the fields the catalog
// must never pass on (preview, path, git remote and SHA).
func fakeThread(i int, name string) map[string]any {
	id := fmt.Sprintf("01a22b08-0000-7000-8000-%012d", i)
	t := map[string]any{
		"id": id, "preview": "SECRET PREVIEW " + id, "path": "/secret/codex-home/sessions/rollout-" + id + ".jsonl",
		"cwd": "/work/project", "status": map[string]any{"type": "notLoaded"}, "createdAt": 1796000000 - i, "updatedAt": 1796000000 - i,
		"source": "vscode", "modelProvider": "fake", "cliVersion": "0.169.0", "ephemeral": false,
		"gitInfo": map[string]any{"branch": "main", "originUrl": "https://secret.example/repo.git", "sha": "deadbeefcafe"},
	}
	if name != "" {
		t["name"] = name
	}
	return t
}

// fakeSource hands out a fakeConn, or fails as a dead App Server does.
type fakeSource struct {
	mu    sync.Mutex
	conn  *fakeConn
	err   error
	conns int
}

func (s *fakeSource) Conn(ctx context.Context) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns++
	if s.err != nil {
		return nil, s.err
	}
	return s.conn, nil
}

func (s *fakeSource) Close() error { return nil }

func (s *fakeSource) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

func (s *fakeSource) setErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// clock is an injected time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)} }

func startErr(path string) error {
	return model.Errorf(model.CodeAppServerUnavailable, "install codex", "start %s app-server: fork/exec %s: no such file or directory; see %s/app-server.log", path, path, path)
}

func has(s, sub string) bool { return strings.Contains(s, sub) }
