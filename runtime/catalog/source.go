package catalog

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Conn is what the catalog needs of an App Server connection; *appserver.Client has it. Its
// requests are the typed calls of appserver over it (appserver.On).
type Conn interface {
	appserver.Caller
	Info() appserver.InitializeResult
	Pid() int
}

// Source gives a host's App Server connection, starting it when needed.
type Source interface {
	Conn(ctx context.Context) (Conn, error)
	Close() error
}

// SourceFunc is a source owned elsewhere (the native harness's App Server): the catalog asks
// for the connection on every use and never keeps it, and never stops it.
type SourceFunc func(ctx context.Context) (Conn, error)

// Conn calls f.
func (f SourceFunc) Conn(ctx context.Context) (Conn, error) { return f(ctx) }

// Close does nothing: the owner stops the App Server.
func (f SourceFunc) Close() error { return nil }

// note is a notification that changes what the catalog shows.
type note struct {
	method string
	params json.RawMessage
}

// observed is a source that reports the notifications of its App Server.
type observed interface {
	setObserver(func(note))
}

// ProcessSource owns the App Server of one extra Codex home: started on first use, started
// again (subject to the catalog's backoff) after it died, stopped by Close.
type ProcessSource struct {
	start func(ctx context.Context) (*appserver.Client, error)
	sem   chan struct{} // one start at a time; a channel so that waiting honours ctx

	mu       sync.Mutex
	c        *appserver.Client
	stop     func()
	closed   bool
	observer func(note)
}

// NewProcessSource returns a source whose App Server start calls start.
func NewProcessSource(start func(ctx context.Context) (*appserver.Client, error)) *ProcessSource {
	return &ProcessSource{start: start, sem: make(chan struct{}, 1)}
}

func (p *ProcessSource) setObserver(fn func(note)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.observer = fn
}

func alive(c *appserver.Client) bool {
	select {
	case <-c.Done():
		return false
	default:
		return true
	}
}

// Conn returns the running App Server, starting it first when there is none or it died.
func (p *ProcessSource) Conn(ctx context.Context) (Conn, error) {
	p.mu.Lock()
	if c := p.c; c != nil && alive(c) {
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.sem }()

	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, closedErr()
	}
	old, oldStop := p.c, p.stop
	if old != nil && alive(old) {
		p.mu.Unlock()
		return old, nil
	}
	p.c, p.stop = nil, nil
	p.mu.Unlock()
	if old != nil {
		oldStop()
		_ = old.Close()
	}

	c, err := p.start(ctx)
	if err != nil {
		return nil, err
	}
	notes, stop := c.Subscribe(catalogNote)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		stop()
		_ = c.Close()
		return nil, closedErr()
	}
	p.c, p.stop = c, stop
	observer := p.observer
	p.mu.Unlock()
	go func() {
		for n := range notes {
			if observer != nil {
				observer(note{method: n.Method, params: n.Params})
			}
		}
	}()
	return c, nil
}

// Close stops the App Server, if one runs.
func (p *ProcessSource) Close() error {
	p.mu.Lock()
	p.closed = true
	c, stop := p.c, p.stop
	p.c, p.stop = nil, nil
	p.mu.Unlock()
	if c == nil {
		return nil
	}
	stop()
	return c.Close()
}

func closedErr() error {
	return model.Errorf(model.CodeAppServerUnavailable, "the runtime is shutting down; retry once it runs again", "the catalog is closed")
}

// catalogNote selects the notifications the catalog follows.
func catalogNote(method string) bool {
	switch method {
	case appserver.NoteThreadStatusChanged, appserver.NoteThreadArchived, appserver.NoteThreadUnarchived, appserver.NoteThreadNameUpdated, appserver.NoteThreadDeleted:
		return true
	}
	return false
}
