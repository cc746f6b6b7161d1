// Package secretfile keeps a secret of the home (a key, a token) in a file of its own, made
// once: 0600, never replaced, and never seen half written, so that of processes racing to
// make it one value wins and every one of them reads that value.
package secretfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CreateError is a failure to make the file: it could not be created, or writing the secret
// failed (Created true); either way no file is left at the path.
type CreateError struct {
	Created bool
	Err     error
}

func (e *CreateError) Error() string {
	if e.Created {
		return fmt.Sprintf("write %v", e.Err)
	}
	return fmt.Sprintf("create %v", e.Err)
}

func (e *CreateError) Unwrap() error { return e.Err }

// ReadOrCreate returns what read makes of the file at path. When read reports that it does
// not exist (an error wrapping os.ErrNotExist), the file is created holding fresh() and a
// newline, synced, and read again; when another process created it meanwhile, theirs is read.
// Other errors of read are returned as they are; failures to make the file are *CreateError.
func ReadOrCreate[T any](path string, fresh func() string, read func(path string) (T, error)) (T, error) {
	var zero T
	for range 2 {
		v, err := read(path)
		if !errors.Is(err, os.ErrNotExist) {
			return v, err
		}
		if err := create(path, fresh()); err != nil && !errors.Is(err, os.ErrExist) {
			return zero, err
		}
	}
	// Made and gone again before it could be read: something else removes it.
	return read(path)
}

// create writes the secret to a temporary file beside path and links it into place, so that
// path never exists half written (a reader racing the creator sees none or all of it) and an
// existing file is never replaced.
func create(path, value string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return &CreateError{Err: err}
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.WriteString(value + "\n")
	merr := f.Chmod(0o600)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, merr, serr, cerr); err != nil {
		return &CreateError{Created: true, Err: err}
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return &CreateError{Err: err}
	}
	return nil
}
