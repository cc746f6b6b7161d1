package catalog

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// The title index of a local host answers title searches from memory, and from a file under
// the home (titles_file.go) when the runtime has just started. Measured on codex 0.169.0
// (titles_order_real_test.go), with useStateDbOnly and sortKey updated_at:
//   - a new thread, a thread with a new turn and an unarchived thread come first: a read of
//     the newest rows down to the index's watermark finds them (headRead);
//   - a renamed thread keeps its updatedAt, and an archived one keeps it in the archived
//     list: neither moves to the head of any order, so only a full read shows a rename made
//     by another process, and only the archived list, read whole, shows every archive.
// So a stored index is first checked (the newest rows down to the watermark, and the whole
// archived list, which is short next to the unarchived one): from then on it never answers
// an archived thread, and shows new ones. It is exact once a full read of the unarchived
// threads (sweep) confirmed every title and dropped the deleted threads; until then an
// answer is marked revalidating. Rows known only from the file are read from the App Server
// (thread/read) before they are returned, so a deleted thread is never answered either.

// titleState is how far a title index has been confirmed.
type titleState int

const (
	titlesEmpty   titleState = iota // nothing known: searches page the App Server
	titlesLoaded                    // read from the file, not yet checked
	titlesChecked                   // archive-exact: archived list and newest rows read
	titlesExact                     // a full read confirmed it
)

// watermarkSlack covers updatedAt's whole seconds and writes racing a read: the newest rows
// are read down to this far below the watermark.
const watermarkSlack = 2

// titleEntry is one indexed thread. full is its projected row when this runtime read it from
// the App Server; rows from the file have only the id, title and times.
type titleEntry struct {
	id        string
	title     string
	titleFold string
	createdAt int64
	updatedAt int64
	full      *row
	at        time.Time // when it was read or last changed: older reads do not override it
}

// titles is a host's title index, guarded by its own mutex (never held across a call).
type titles struct {
	mu      sync.Mutex
	state   titleState
	entries map[string]*titleEntry
	// watermark: every unarchived thread updated after it (less the slack) is indexed. Only a
	// whole read of the newest rows or a full read raises it (headRead, sweep), each to a
	// time no later than its own start, so a thread that no read has reached stays above it.
	watermark int64
	version   string    // Codex version the index was read with
	homeKey   string    // hash of the Codex home path the index was read from
	exactAt   time.Time // last full read that completed
	headAt    time.Time // last read of the newest rows
	headStale bool      // a change seen (unarchive) asks for a read of the newest rows
	loadedAt  time.Time // when the file was read, zero when none
	// changed is closed and replaced whenever the state rises, so callers can wait for it.
	changed chan struct{}
	dirty   bool // changed since it was last written
}

func newTitles() *titles {
	return &titles{entries: map[string]*titleEntry{}, changed: make(chan struct{})}
}

// raise moves the state up and wakes the waiters. The caller holds mu.
func (t *titles) raise(s titleState) {
	if s > t.state {
		t.state = s
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// view returns the state and a channel closed at its next change.
func (t *titles) view() (titleState, chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state, t.changed
}

// total is the number of threads indexed, known only once a full read made the index exact.
func (t *titles) total() (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries), t.state == titlesExact
}

// reset forgets everything: the file's Codex version or home differ, or the host started over.
func (t *titles) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries = map[string]*titleEntry{}
	t.state, t.watermark, t.exactAt, t.headAt, t.dirty = titlesEmpty, 0, time.Time{}, time.Time{}, true
	close(t.changed)
	t.changed = make(chan struct{})
}

// upsert records a row read at `read` unless a later change of it was seen.
func (t *titles) upsert(r row, read time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.upsertLocked(r, read)
}

func (t *titles) upsertLocked(r row, read time.Time) {
	e := t.entries[r.s.ID]
	if e != nil && e.at.After(read) {
		return
	}
	full := r
	n := &titleEntry{id: r.s.ID, title: r.s.Title, titleFold: r.titleFold,
		createdAt: r.s.CreatedAt.Unix(), updatedAt: r.s.UpdatedAt.Unix(), full: &full, at: read}
	t.entries[r.s.ID] = n
	// The file holds the id, title and times: a row read again as it was changes nothing there.
	if e == nil || e.title != n.title || e.createdAt != n.createdAt || e.updatedAt != n.updatedAt {
		t.dirty = true
	}
}

// raiseWatermark moves the watermark up to w. The caller holds mu.
func (t *titles) raiseWatermark(w int64) {
	if w > t.watermark {
		t.watermark, t.dirty = w, true
	}
}

// remove drops a thread seen archived or deleted at `at`.
func (t *titles) remove(id string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entries[id]; e != nil && !e.at.After(at) {
		delete(t.entries, id)
		t.dirty = true
	}
}

// rename applies a title change seen at `at`.
func (t *titles) rename(id, title string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[id]
	if e == nil {
		t.headStale = true // likely new: the next search reads the newest rows
		return
	}
	c := *e
	c.title, c.titleFold, c.at = title, fold(title), at
	if c.full != nil {
		f := *c.full
		f.s.Title, f.titleFold = title, c.titleFold
		c.full = &f
	}
	t.entries[id] = &c
	t.dirty = true
}

// titleCursor is the position after the last row a search returned, in the search's order.
type titleCursor struct {
	createdAt int64
	id        string
}

// before orders entries as the native list does: newest createdAt first, then id.
func (e *titleEntry) before(o *titleEntry) bool {
	if e.createdAt != o.createdAt {
		return e.createdAt > o.createdAt
	}
	return e.id > o.id
}

// matches returns the entries whose title contains needle, in list order, after the cursor.
func (t *titles) matches(needle string, after *titleCursor) []*titleEntry {
	t.mu.Lock()
	var out []*titleEntry
	for _, e := range t.entries {
		if strings.Contains(e.titleFold, needle) {
			out = append(out, e)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b *titleEntry) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	if after != nil {
		pos := &titleEntry{createdAt: after.createdAt, id: after.id}
		out = out[sort.Search(len(out), func(i int) bool { return pos.before(out[i]) }):]
	}
	return out
}

// resolved replaces a file-only entry by the row read from the App Server.
func (t *titles) resolved(r row, read time.Time) { t.upsert(r, read) }

// snapshot copies the entries for writing.
func (t *titles) snapshot() (entries []titleEntry, watermark int64, version, homeKey string, dirty bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	entries = make([]titleEntry, 0, len(t.entries))
	for _, e := range t.entries {
		entries = append(entries, titleEntry{id: e.id, title: e.title, createdAt: e.createdAt, updatedAt: e.updatedAt})
	}
	dirty, t.dirty = t.dirty, false
	return entries, t.watermark, t.version, t.homeKey, dirty
}
