package marker

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The names of task-create blocks are content: never in a store record. A run whose report
// is still to come keeps them in a 0600 file of Options.NamesDir, so that a report delivered
// after a restart still shows them; the file goes once the run is reported, held or
// abandoned.

const namesExt = ".names"

func (e *Engine) namesPath(run string) string {
	if e.opts.NamesDir == "" || run == "" || strings.ContainsAny(run, `/\.`) {
		return ""
	}
	return filepath.Join(e.opts.NamesDir, run+namesExt)
}

// saveNames writes the run's names durably before the run record that needs them.
func (e *Engine) saveNames(run string) error {
	e.mu.Lock()
	names := map[string]string{}
	for seq, n := range e.names[run] {
		names[strconv.Itoa(seq)] = n
	}
	e.mu.Unlock()
	path := e.namesPath(run)
	if path == "" || len(names) == 0 {
		return nil
	}
	data, err := json.Marshal(names)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.opts.NamesDir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// loadNames restores a resumed run's names; a run without a file had none.
func (e *Engine) loadNames(run string) {
	path := e.namesPath(run)
	if path == "" {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(e.opts.Log, "marker run %s: names: %v\n", run, err)
		}
		return
	}
	var names map[string]string
	if err := json.Unmarshal(data, &names); err != nil {
		fmt.Fprintf(e.opts.Log, "marker run %s: names: %v\n", run, err)
		return
	}
	for k, n := range names {
		if seq, err := strconv.Atoi(k); err == nil {
			e.rememberName(run, seq, n)
		}
	}
}

// dropNames removes the run's names file: its report no longer needs them.
func (e *Engine) dropNames(run string) {
	if path := e.namesPath(run); path != "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(e.opts.Log, "marker run %s: names: %v\n", run, err)
		}
	}
}

// sweepNames removes the names files of runs that are not running (a crash between the file
// and the run's end leaves one).
func (e *Engine) sweepNames(running map[string]bool) {
	if e.opts.NamesDir == "" {
		return
	}
	entries, err := os.ReadDir(e.opts.NamesDir)
	if err != nil {
		return
	}
	for _, ent := range entries {
		if run, ok := strings.CutSuffix(ent.Name(), namesExt); ok && !running[run] {
			e.dropNames(run)
		}
	}
}
