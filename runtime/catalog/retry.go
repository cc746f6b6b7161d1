package catalog

import "github.com/codexhost/codexhost/model"

// RetryUnavailable ends the backoff of every host whose App Server could not be started or
// reached, so that the next call tries it at once: what kept it down (no codex binary) has
// just been fixed. The failure stays on record until that attempt, so the host still shows
// no remembered rows. It returns how many hosts it cleared.
func (c *Catalog) RetryUnavailable() int {
	n := 0
	for _, h := range c.hosts {
		h.hmu.Lock()
		if h.health.err != nil && h.health.err.Code == model.CodeAppServerUnavailable {
			h.health.retryAt = h.health.checked
			n++
		}
		h.hmu.Unlock()
	}
	return n
}
