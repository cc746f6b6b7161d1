package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// Queued messages ride the notification path: a pending watch whose MessageFile names a
// 0600 file with the text. They are retried, merged with the recipient's other pending
// notifications and given up on like any notification, and the file goes with the watch.

// WriteMessage stores a message text under name in the message folder (0600), synced, for a
// watch that Adopt queues afterwards.
func (e *Engine) WriteMessage(name, text string) error {
	if e.opts.MessageDir == "" || name == "" || strings.ContainsAny(name, `/\`) || name[0] == '.' {
		return fmt.Errorf("watch: invalid message name %q", name)
	}
	if err := os.MkdirAll(e.opts.MessageDir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(e.opts.MessageDir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Adopt queues a pending watch already written to the store (a message whose record was
// written together with its producer's state) and wakes the engine.
func (e *Engine) Adopt(w model.Watch) {
	e.mu.Lock()
	c := w
	e.active[w.ID] = &c
	e.retryNow[w.Notify] = true
	e.mu.Unlock()
	e.Kick()
}

// text is what one delivery sends: the stop notifications, then each queued message.
func (e *Engine) text(ws []model.Watch) string {
	var stops []model.Watch
	var parts []string
	for _, w := range ws {
		if w.MessageFile == "" {
			stops = append(stops, w)
			continue
		}
		parts = append(parts, e.readMessage(w))
	}
	if len(stops) > 0 {
		parts = append([]string{textWithUsage(stops, e.opts.Usage)}, parts...)
	}
	return strings.Join(parts, "\n\n")
}

func (e *Engine) readMessage(w model.Watch) string {
	b, err := os.ReadFile(filepath.Join(e.opts.MessageDir, w.MessageFile))
	if err != nil {
		return fmt.Sprintf("codexhost: a queued message could not be read (%s).", shortErr(err))
	}
	return string(b)
}

func (e *Engine) dropMessage(w *model.Watch) {
	if w.MessageFile == "" || e.opts.MessageDir == "" {
		return
	}
	if err := os.Remove(filepath.Join(e.opts.MessageDir, w.MessageFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(e.opts.Log, "watch %s: remove message: %v\n", w.ID, err)
	}
}
