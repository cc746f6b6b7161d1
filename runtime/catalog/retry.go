package catalog

import "github.com/codexhost/codexhost/model"

// RetryUnavailable forgets the failure of every host whose App Server could not be started or
// reached, so that the next call tries it at once and its health reads unknown until then:
// what kept it down (no codex binary) has just been fixed. The failure generation stays, so
// the host still shows no remembered rows. It returns how many hosts it cleared.
func (c *Catalog) RetryUnavailable() int {
	n := 0
	for _, h := range c.hosts {
		h.hmu.Lock()
		if h.health.err != nil && h.health.err.Code == model.CodeAppServerUnavailable {
			h.health = health{failGen: h.health.failGen}
			n++
		}
		h.hmu.Unlock()
	}
	return n
}
