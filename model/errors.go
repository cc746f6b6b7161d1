// Package model holds the domain types and rules of codexhost. It does no I/O and imports
// nothing of the project.
package model

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. Agents branch on it, so names never change.
type Code string

// The error codes of the CLI contract.
const (
	CodeInvalidArgument       Code = "INVALID_ARGUMENT"
	CodeHarnessNotFound       Code = "HARNESS_NOT_FOUND"
	CodeThreadNotFound        Code = "THREAD_NOT_FOUND"
	CodeThreadBusy            Code = "THREAD_BUSY"
	CodeParentThreadAmbiguous Code = "PARENT_THREAD_AMBIGUOUS"
	CodeRuntimeUnreachable    Code = "RUNTIME_UNREACHABLE"
	CodePermissionDenied      Code = "PERMISSION_DENIED"
	CodeFailedPrecondition    Code = "FAILED_PRECONDITION"
	CodeDelegationFailed      Code = "DELEGATION_FAILED"
	CodeInternal              Code = "INTERNAL_ERROR"
	CodeAppServerUnavailable  Code = "APP_SERVER_UNAVAILABLE"
	CodeNodeOffline           Code = "NODE_OFFLINE"
	CodeNodeInvokeFailed      Code = "NODE_INVOKE_FAILED"
	// CodeStoreDamaged: the home's database is damaged; it was not opened, so nothing in it
	// was changed or dropped.
	CodeStoreDamaged Code = "STORE_DAMAGED"
	// CodeResourceExhausted: a connection or request limit of the runtime API was reached.
	CodeResourceExhausted Code = "RESOURCE_EXHAUSTED"
)

// Error is the one error type that crosses the runtime API and the CLI: a code to branch on,
// a message for people, and a hint that names the fix.
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Hint    string         `json:"hint,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// Errorf builds an Error with a formatted message.
func Errorf(code Code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint}
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Hint)
}

// WithDetail returns a copy of e carrying one more detail.
func (e *Error) WithDetail(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// ExitCode is the process exit status for this error: 1 for every failure, per the CLI contract.
func (e *Error) ExitCode() int { return 1 }

// JSON renders the error envelope printed on stderr: {"error":{"code":…,"message":…,…}}.
func (e *Error) JSON() []byte {
	b, err := MarshalPlain(struct {
		Error *Error `json:"error"`
	}{e})
	if err != nil {
		// Details hold only plain values we put there; fall back without them rather than lose the code.
		b, _ = MarshalPlain(struct {
			Error Error `json:"error"`
		}{Error{Code: e.Code, Message: e.Message, Hint: e.Hint}})
	}
	return b
}

// AsError returns err as an *Error, wrapping anything else as INTERNAL_ERROR.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var me *Error
	if errors.As(err, &me) {
		return me
	}
	return &Error{Code: CodeInternal, Message: err.Error(), Hint: "this is a bug or an environment failure; run `codexhost doctor` and report it if it persists"}
}

// IsCode reports whether err is an *Error with the given code.
func IsCode(err error, code Code) bool {
	var me *Error
	return errors.As(err, &me) && me != nil && me.Code == code
}
