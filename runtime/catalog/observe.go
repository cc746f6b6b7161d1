package catalog

import (
	"encoding/json"
	"time"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// ObserveStatus records a thread status change seen by the host's own harness.
func (c *Catalog) ObserveStatus(hostID, threadID, status string) {
	h := c.byID[hostID]
	if h == nil || threadID == "" {
		return
	}
	h.setOverlay(c.opts.Now(), threadID, func(o *overlay) {
		o.status, o.waiting = status, false
	})
}

// observe applies a notification of a host's App Server.
func (c *Catalog) observe(h *host, n note) {
	var ev struct {
		ThreadID   string                 `json:"threadId"`
		Status     appserver.ThreadStatus `json:"status"`
		ThreadName *string                `json:"threadName"`
	}
	if json.Unmarshal(n.params, &ev) != nil || ev.ThreadID == "" {
		return
	}
	now := c.opts.Now()
	switch n.method {
	case appserver.NoteThreadStatusChanged:
		h.setOverlay(now, ev.ThreadID, func(o *overlay) {
			o.status, o.waiting = sessionStatus(ev.Status.Type), ev.Status.WaitingOnApproval()
		})
	case appserver.NoteThreadArchived, appserver.NoteThreadDeleted:
		h.setOverlay(now, ev.ThreadID, func(o *overlay) { o.archived = true })
	case appserver.NoteThreadNameUpdated:
		title := ""
		if ev.ThreadName != nil {
			title = cleanTitle(*ev.ThreadName)
		}
		h.setOverlay(now, ev.ThreadID, func(o *overlay) { o.title = &title })
	case appserver.NoteThreadUnarchived:
		// It returns among older pages; read them again rather than guess where. In the
		// title index it comes first by updatedAt.
		h.titlesHeadStale()
		h.omu.Lock()
		h.live.reset = true
		delete(h.live.overlay, ev.ThreadID)
		h.omu.Unlock()
	}
}

// setOverlay records a change. A thread the index does not hold is likely new: the newest
// page is read again so that it shows up.
func (h *host) setOverlay(now time.Time, id string, change func(*overlay)) {
	h.omu.Lock()
	defer h.omu.Unlock()
	o := h.live.overlay[id]
	if !o.archived {
		change(&o)
	}
	o.at = now
	h.live.overlay[id] = o
	if h.titles != nil {
		switch {
		case o.archived:
			h.titles.remove(id, now)
		case o.title != nil:
			h.titles.rename(id, *o.title, now)
		}
	}
	if !o.archived && !h.live.known[id] {
		h.live.headStale = true
	}
}
