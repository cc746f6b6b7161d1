// Package secretfile keeps a secret of the home (a key, a token) in a file of its own, made
// once: 0600, created exclusively, so that of processes racing to make it one value wins and
// every one of them reads that value.
package secretfile

import (
	"errors"
	"fmt"
	"os"
)

// CreateError is a failure to make the file: it could not be created, or it was created but
// writing it failed (Created true), in which case it was removed again.
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

func create(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return err
	}
	if err != nil {
		return &CreateError{Err: err}
	}
	_, werr := f.WriteString(value + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(path)
		return &CreateError{Created: true, Err: err}
	}
	return nil
}
