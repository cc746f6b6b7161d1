package ui

import (
	"strconv"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The two watch lists: what is being watched or waits for delivery, and what could not be
// delivered. Both read thread.watches, as `codexhost thread watches` does.

func loadWatches(c *common) (api.WatchesResult, error) {
	return call(c, api.ThreadWatches, struct{}{})
}

func watchingSpec() listSpec[model.Watch] {
	return listSpec[model.Watch]{
		title: "Watches",
		empty: "no watches; w on a thread adds one",
		load: func(c *common) ([]model.Watch, error) {
			res, err := loadWatches(c)
			return append(res.Watching, res.Pending...), err
		},
		key:    func(w model.Watch) string { return w.ID },
		thread: func(w model.Watch) string { return string(w.Thread) },
		row: func(c *common, w model.Watch, width int) string {
			st := c.st
			var badge, when string
			switch w.State {
			case model.WatchWatching:
				badge = st.BadgeActive.Render("● watching")
				when = "ends in " + until(c.now(), w.Deadline)
			default:
				badge = st.BadgeWaiting.Render(pad("◆ "+w.State, 10))
				when = oneLine(w.Result)
				if w.Attempts > 0 {
					when += " · try " + strconv.Itoa(w.Attempts)
				}
			}
			return truncate(badge+" "+c.short(string(w.Thread))+" → "+recipient(c, w.Notify)+"  "+st.Muted.Render(when), width)
		},
		detail: func(c *common, w model.Watch) string {
			return "watch " + w.ID + " of " + string(w.Thread) + " for " + oneLine(w.Notify)
		},
	}
}

func undeliverableSpec() listSpec[model.Watch] {
	return listSpec[model.Watch]{
		title: "Undeliverable",
		empty: "nothing undeliverable",
		load: func(c *common) ([]model.Watch, error) {
			res, err := loadWatches(c)
			return res.Undeliverable, err
		},
		key:    func(w model.Watch) string { return w.ID },
		thread: func(w model.Watch) string { return string(w.Thread) },
		row: func(c *common, w model.Watch, width int) string {
			st := c.st
			return truncate(st.BadgeError.Render("✗")+" "+c.short(string(w.Thread))+" → "+recipient(c, w.Notify)+" "+
				st.Muted.Render(oneLine(w.Result)+" · "+oneLine(w.Reason)), width)
		},
		detail: func(c *common, w model.Watch) string {
			return c.st.G.Danger + "reason: " + oneLine(w.Reason)
		},
	}
}

// recipient is who a watch notifies, a thread by its short id as everywhere else, a client
// by its name ("client:bot"). The detail view (i) has it in full.
func recipient(c *common, notify string) string {
	if id, err := model.ParseThreadID(notify); err == nil {
		return c.short(string(id))
	}
	return oneLine(notify)
}

// until is how long until t, in one short word.
func until(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	if !t.After(now) {
		return "now"
	}
	return age(now, now.Add(-t.Sub(now)))
}

func itoa(n int) string { return strconv.Itoa(n) }
