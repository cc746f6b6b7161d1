// Package catalog is the fleet catalog: per host (a Codex home reached through its App
// Server), the unarchived interactive native sessions as metadata only, paged transcripts,
// a guarded archive and the reads of a source that continue (runtime/supervise) branches. It
// is passive: it never resumes a thread, subscribes to one or answers an approval.
package catalog

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// LocalHostID is the default Codex home, served by the native harness's App Server.
const LocalHostID = "gateway:local"

// Limits and defaults. The App Server caps a thread/list page at 100 rows.
const (
	DefaultLimit          = 50
	MaxLimit              = 100
	NativePageSize        = 100
	DefaultSearchPages    = 20
	DefaultIndexTTL       = 10 * time.Second
	DefaultPageTTL        = time.Minute
	DefaultHostTimeout    = 30 * time.Second
	DefaultPageBytes      = 20 << 20
	DefaultTurnsPerPage   = 20
	DefaultDescendantPage = 20
	DefaultReadAheadPages = 100
	MaxSearchRunes        = 200
	// maxIndexRows bounds the rows one host keeps resident; past it the index starts over.
	maxIndexRows = 200_000
	backoffMin   = 2 * time.Second
	backoffMax   = 60 * time.Second
)

// HostSpec describes one host.
type HostSpec struct {
	ID      string
	Default bool // the default CODEX_HOME
	Source  Source
	// Running reports whether this runtime's own harness runs a turn on the thread (an owner
	// that blocks archive). Nil when nothing of this runtime runs turns on the host.
	Running func(threadID string) bool
	// Waiting reports whether this runtime holds an approval request of the thread that
	// nobody answered yet: the row says so whatever the last status seen (view). Nil when
	// nothing of this runtime asks on the host.
	Waiting func(threadID string) bool
}

// Options tune a Catalog; zero fields take the defaults above.
type Options struct {
	// Key signs cursors. Keep it stable across restarts (a file in the home) so that cursors
	// outlive one CLI process; an empty key is random, and cursors then die with the catalog.
	Key []byte
	Now func() time.Time
	// IndexTTL is how long the newest page read from the App Server is served from memory:
	// new threads appear there. PageTTL is the same for older pages, which change only when
	// a thread is archived, renamed or restored; changes seen by this runtime show at once.
	IndexTTL        time.Duration
	PageTTL         time.Duration
	SearchPages     int           // native pages one search call may read per host
	PageBytes       int           // largest transcript page (items) returned
	HostTimeout     time.Duration // bound of one host's part of a call
	DescendantPages int           // native pages archive may read to enumerate descendants
	// ReadAheadPages bounds the native pages a list reads ahead in the background, so that a
	// later search or page is served from memory; negative turns read-ahead off.
	ReadAheadPages int
	Log            io.Writer // raw App Server errors, which never reach callers
	// KeepWarm keeps a host's index warm for this long after its last use (warm.go): its
	// pages are read again in the background before they expire. Zero turns it off.
	KeepWarm time.Duration
	// IndexDir keeps a title index per local host in files there (titles*.go), so that a
	// runtime just started answers a search at once; empty keeps none.
	IndexDir string
	// OneShot is a catalog that lives for one command: nothing is started in the background
	// that the command's exit would cut short (read-ahead, keep-warm, the full read that
	// confirms a checked title index). A search reads in the call what its answer needs, and
	// the title index keeps what was read (Close writes it).
	OneShot bool
}

// Catalog serves the hosts. Its methods are safe for concurrent use.
type Catalog struct {
	opts  Options
	hosts []*host
	byID  map[string]*host

	bg     sync.WaitGroup // read-aheads
	bgCtx  context.Context
	bgStop context.CancelFunc
	// warming: the keep-warm loop runs (warm.go).
	warming atomic.Bool
}

type host struct {
	spec HostSpec

	// mu serialises the index of this host: one list walks it at a time.
	mu  sync.Mutex
	idx index

	omu  sync.Mutex
	live live

	hmu    sync.Mutex
	health health

	ahead atomic.Bool // a read-ahead runs

	fl     flights      // pages being read (warm.go)
	usedAt atomic.Int64 // last list of the host, unix ns, for keep-warm

	// titles is the host's title index (titles.go), nil when none is kept.
	titles     *titles
	titlesPath string
	titlesOnce sync.Once   // the file is read once
	titlesBusy atomic.Bool // a revalidation runs
}

// health is the outcome of the last attempt to reach the host.
type health struct {
	checked  time.Time
	err      *model.Error // nil: the last attempt worked
	failures int
	retryAt  time.Time
	// failGen counts failures; the index starts over when it sees a new one, so a failed
	// host shows no rows, not even remembered ones.
	failGen int
}

// New returns a catalog over hosts, in the order given (the default host should be first).
func New(specs []HostSpec, opts Options) (*Catalog, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IndexTTL <= 0 {
		opts.IndexTTL = DefaultIndexTTL
	}
	if opts.PageTTL <= 0 {
		opts.PageTTL = DefaultPageTTL
	}
	opts.PageTTL = max(opts.PageTTL, opts.IndexTTL)
	if opts.SearchPages <= 0 {
		opts.SearchPages = DefaultSearchPages
	}
	if opts.PageBytes <= 0 {
		opts.PageBytes = DefaultPageBytes
	}
	if opts.HostTimeout <= 0 {
		opts.HostTimeout = DefaultHostTimeout
	}
	if opts.DescendantPages <= 0 {
		opts.DescendantPages = DefaultDescendantPage
	}
	if opts.ReadAheadPages == 0 {
		opts.ReadAheadPages = DefaultReadAheadPages
	}
	if opts.OneShot {
		opts.ReadAheadPages, opts.KeepWarm = -1, 0
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if len(opts.Key) == 0 {
		opts.Key = make([]byte, 32)
		_, _ = rand.Read(opts.Key)
	}
	c := &Catalog{opts: opts, byID: map[string]*host{}}
	c.bgCtx, c.bgStop = context.WithCancel(context.Background())
	for _, s := range specs {
		if s.ID == "" || s.Source == nil {
			return nil, fmt.Errorf("catalog: host %q needs an id and a source", s.ID)
		}
		if c.byID[s.ID] != nil {
			return nil, fmt.Errorf("catalog: host %q is given twice", s.ID)
		}
		h := &host{spec: s}
		if _, node := s.Source.(*NodeSource); opts.IndexDir != "" && !node {
			h.titles, h.titlesPath = newTitles(), titlesPath(opts.IndexDir, s.ID)
		}
		h.idx.init()
		h.live.init()
		c.hosts = append(c.hosts, h)
		c.byID[s.ID] = h
		if o, ok := s.Source.(observed); ok {
			o.setObserver(func(n note) { c.observe(h, n) })
		}
	}
	return c, nil
}

// Close stops the read-aheads and the App Servers the catalog's sources started. A title
// index changed since it was last written is written first: what this process read is kept
// for the next one, however short its life.
func (c *Catalog) Close() error {
	c.bgStop()
	c.bg.Wait()
	var first error
	for _, h := range c.hosts {
		if h.titles != nil {
			c.saveTitles(h)
		}
		if err := h.spec.Source.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ExtraHostID is the id of an extra Codex home: a hash of its cleaned path, so the id is
// stable across restarts while the path stays out of every output.
func ExtraHostID(codexHome string) string {
	sum := sha256.Sum256([]byte("codexhost catalog home\n" + filepath.Clean(codexHome)))
	return LocalHostID + ":" + hex.EncodeToString(sum[:6])
}

// Hosts lists every host with its capabilities and the health of its last attempt. Paired
// nodes are asked for their live command set first (all at once, each bounded by the host
// timeout), so their capabilities and health are current.
func (c *Catalog) Hosts(ctx context.Context) api.CatalogHostsResult {
	out := api.CatalogHostsResult{Hosts: make([]api.CatalogHost, len(c.hosts))}
	var wg sync.WaitGroup
	for i, h := range c.hosts {
		v := api.CatalogHost{ID: h.spec.ID, Kind: api.CatalogHostLocal, Default: h.spec.Default,
			Capabilities: []string{api.CatalogCapList, api.CatalogCapTranscript, api.CatalogCapContinue, api.CatalogCapArchive}}
		out.Hosts[i] = v
		n := h.node()
		if n == nil {
			out.Hosts[i].Health = h.healthView()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.Kind, v.Capabilities = api.CatalogHostNode, []string{}
			if err := h.backingOff(c.opts.Now()); err == nil {
				hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
				cmds, err := n.Commands(hctx)
				cancel()
				if err != nil {
					c.hostFailed(ctx, h, err)
				} else {
					h.succeeded(c.opts.Now())
					v.Capabilities = nodeCapabilities(cmds)
				}
			}
			v.Health = h.healthView()
			out.Hosts[i] = v
		}()
	}
	wg.Wait()
	return out
}

// nodeCapabilities maps the commands a node offers and this gateway allows to what the
// catalog can do there. Archive is never among them: no confirmation covers another machine.
func nodeCapabilities(cmds []string) []string {
	has := func(c string) bool { return slices.Contains(cmds, c) }
	caps := []string{}
	if has(api.NodeCmdThreadsList) {
		caps = append(caps, api.CatalogCapList)
	}
	if has(api.NodeCmdTurnsList) {
		caps = append(caps, api.CatalogCapTranscript)
	}
	if has(api.NodeCmdThreadsList) && has(api.NodeCmdTurnsList) && has(api.NodeCmdSessionResume) {
		caps = append(caps, api.CatalogCapContinue)
	}
	return caps
}

// node is the host's paired-node source, or nil for a local host.
func (h *host) node() *NodeSource {
	n, _ := h.spec.Source.(*NodeSource)
	return n
}

func (h *host) healthView() api.CatalogHealth {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	if h.health.checked.IsZero() {
		return api.CatalogHealth{State: api.CatalogHealthUnknown}
	}
	checked := h.health.checked
	v := api.CatalogHealth{State: api.CatalogHealthOK, CheckedAt: &checked}
	if e := h.health.err; e != nil {
		v.State, v.Code, v.Message = api.CatalogHealthError, string(e.Code), e.Message
		retry := h.health.retryAt
		v.RetryAt = &retry
	}
	return v
}

// host resolves a host id; "" is the default local host.
func (c *Catalog) host(id string) (*host, error) {
	if id == "" {
		id = LocalHostID
	}
	if h := c.byID[id]; h != nil {
		return h, nil
	}
	ids := make([]string, len(c.hosts))
	for i, h := range c.hosts {
		ids[i] = h.spec.ID
	}
	return nil, model.Errorf(model.CodeInvalidArgument, "use one of: "+strings.Join(ids, ", ")+" (`codexhost hosts` lists them)",
		"unknown host %s", quoteArg(id))
}

// quoteArg echoes a caller's argument, bounded, for an error message.
func quoteArg(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// conn returns a connection to the host's App Server, unless the host is backing off after
// a failure: a dead App Server is not restarted on every call. outer is the caller's
// context, hctx the same bounded by the host timeout.
func (c *Catalog) conn(outer, hctx context.Context, h *host) (Conn, error) {
	if err := h.backingOff(c.opts.Now()); err != nil {
		return nil, err
	}
	cn, err := h.spec.Source.Conn(hctx)
	if err != nil {
		return nil, c.hostFailed(outer, h, err)
	}
	return cn, nil
}

func (h *host) backingOff(now time.Time) error {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	if h.health.err == nil || !now.Before(h.health.retryAt) {
		return nil
	}
	wait := h.health.retryAt.Sub(now).Round(time.Second)
	if wait < time.Second {
		wait = time.Second
	}
	e := *h.health.err
	e.Message = fmt.Sprintf("%s; next attempt in %s", e.Message, wait)
	return &e
}

// hostFailed records a failure of the host itself (its App Server cannot be started, died,
// did not answer in time or refused to list) and starts or extends the backoff. The
// returned error is clean. A caller that gave up (outer ended) records nothing.
func (c *Catalog) hostFailed(outer context.Context, h *host, err error) *model.Error {
	clean := hostError(err)
	if outer.Err() != nil {
		return model.Errorf(clean.Code, "retry the command", "the call ended before host %s answered", h.spec.ID)
	}
	fmt.Fprintf(c.opts.Log, "catalog: host %s: %v\n", h.spec.ID, err)
	now := c.opts.Now()
	h.hmu.Lock()
	defer h.hmu.Unlock()
	h.health.failures++
	h.health.failGen++
	wait := backoffMin << min(h.health.failures-1, 5)
	h.health.checked, h.health.err, h.health.retryAt = now, clean, now.Add(min(wait, backoffMax))
	return clean
}

func (h *host) failGeneration() int {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	return h.health.failGen
}

func (h *host) succeeded(now time.Time) {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	h.health = health{checked: now, failGen: h.health.failGen}
}
