package ui

import (
	"fmt"
	"hash/fnv"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// turnEntries are the messages of catalog turns, oldest first.
func turnEntries(turns []api.CatalogTurn) []tEntry {
	var out []tEntry
	for _, tr := range turns {
		for i, m := range tr.Messages {
			at := m.At
			if at.IsZero() && tr.StartedAt != nil {
				at = *tr.StartedAt
			}
			e := tEntry{key: fmt.Sprintf("%s#%d", tr.ID, i), role: m.Role, text: clean(m.Text),
				turn: tr.ID, turnStatus: tr.Status, turnError: tr.Error, at: at}
			if tr.StartedAt != nil {
				e.started = *tr.StartedAt
			}
			out = append(out, e)
		}
	}
	return out
}

// messageEntries are the messages of a thread.read page, oldest first.
func messageEntries(msgs []model.Message) []tEntry {
	out := make([]tEntry, 0, len(msgs))
	seen := map[string]int{}
	for _, m := range msgs {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s", m.Role, m.TurnID, m.At.UnixNano(), m.Text)
		k := fmt.Sprintf("%x", h.Sum64())
		// Two equal messages in one turn stay two entries.
		seen[k]++
		if n := seen[k]; n > 1 {
			k = fmt.Sprintf("%s.%d", k, n)
		}
		out = append(out, tEntry{key: k, item: m.ID, role: m.Role, text: clean(m.Text), turn: m.TurnID, at: m.At})
	}
	return out
}

// mergeNewest lays a fresh newest page over what is loaded: everything before the page's
// first message stays. When the page does not reach back to what is loaded, the loaded part
// is dropped and paging restarts from the page, so the view never has a hidden gap.
func mergeNewest(have []tEntry, haveOlder string, page []tEntry, pageOlder string, loaded bool) ([]tEntry, string) {
	if !loaded || len(have) == 0 || len(page) == 0 {
		return page, pageOlder
	}
	first := page[0].key
	for i, e := range have {
		if e.key == first {
			return append(append([]tEntry(nil), have[:i]...), page...), haveOlder
		}
	}
	return page, pageOlder
}
