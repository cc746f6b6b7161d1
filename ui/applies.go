package ui

import (
	"github.com/charmbracelet/bubbles/key"

	"fmt"

	"github.com/codexhost/codexhost/model"
)

// Which thread keys apply to a thread, and why not when one does not: the footer offers only
// what applies, and a key that does not apply says why instead of failing later.

// cancelReason is why x cannot cancel ref's turn; empty when it can.
func (c *common) cancelReason(ref threadRef) string {
	switch {
	case ref.Status == model.ThreadActive:
		return ""
	case ref.Status == model.ThreadNotLoaded:
		return fmt.Sprintf("nothing to cancel: %s is stored, not loaded here, so no turn of it runs in this runtime", c.name(ref))
	case ref.Status == "":
		return fmt.Sprintf("nothing to cancel: the status of %s is not known yet (r refreshes)", c.name(ref))
	}
	return fmt.Sprintf("nothing to cancel: %s is %s, no turn is running", c.name(ref), statusWords(ref.Status, ref.Waiting))
}

// watchReason is why there is nothing to watch on ref, said before any form opens: a watch
// notifies when a running turn stops, and the runtime answers a thread at rest with its
// last turn's end (alreadyTerminal). Empty when a turn runs or the status is not known.
func (c *common) watchReason(ref threadRef) string {
	switch ref.Status {
	case model.ThreadActive, "":
		return ""
	}
	// The short id only: the line must fit 80 columns beside the endpoint.
	return fmt.Sprintf("nothing to watch: %s is %s, no turn runs", c.short(ref.ID), statusWords(ref.Status, ref.Waiting))
}

// archiveReason is why a cannot archive ref; empty when it can.
func (c *common) archiveReason(ref threadRef) string {
	switch {
	case ref.node():
		return fmt.Sprintf("archive: %s is a thread of paired node %s; archive it on the node itself", c.name(ref), ref.Host)
	case !ref.catalog():
		return fmt.Sprintf("archive: %s runs on harness %q; only native Codex sessions of a catalog host can be archived", c.name(ref), ref.Harness)
	}
	return ""
}

// continueReason is why c cannot continue ref; empty when it can (a node may still refuse,
// which its capabilities tell: continueKey checks them).
func (c *common) continueReason(ref threadRef) string {
	if !ref.catalog() && ref.Harness != model.NativeHarness {
		return fmt.Sprintf("continue: %s runs on harness %q; only native Codex sessions can be continued", c.name(ref), ref.Harness)
	}
	return ""
}

// threadKeysFor is the thread keys the footer offers for ref: only those that apply.
func (a *App) threadKeysFor(ref threadRef) []key.Binding {
	km := a.c.keys
	t := km.Thread
	b := []key.Binding{t.Send}
	if (a.focus == paneFleet || a.focus == paneTranscript) && a.c.continueReason(ref) == "" {
		b = append(b, km.Fleet.Continue)
	}
	b = append(b, t.Delegate, t.Watch)
	if a.c.cancelReason(ref) == "" {
		b = append(b, t.Cancel)
	}
	if a.c.archiveReason(ref) == "" {
		b = append(b, t.Archive)
	}
	return append(b, navHelp(t.Copy, t.CopyLink, "copy id/link"))
}
