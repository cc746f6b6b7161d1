package appserver

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
)

// How the App Server's answers read: its error messages, its transient answers about a
// thread just started, and its thread statuses in codexhost's terms.

// RPCMessage is the message of an App Server error answer; ok is false for any other error
// (a dead process, a timeout).
func RPCMessage(err error) (msg string, ok bool) {
	var rpc *RPCError
	if errors.As(err, &rpc) {
		return rpc.Message, true
	}
	return "", false
}

// RPCHas reports an App Server error answer whose message contains substr.
func RPCHas(err error, substr string) bool {
	msg, ok := RPCMessage(err)
	return ok && strings.Contains(msg, substr)
}

// IsRPC reports an answer of the App Server about the request, as opposed to a failure of
// the App Server itself.
func IsRPC(err error) bool {
	_, ok := RPCMessage(err)
	return ok
}

// UnknownThreadMessage recognises the App Server's ways of saying a thread does not exist:
// thread/read and thread/turns/list answer "thread not loaded" for an unknown id.
func UnknownThreadMessage(msg string) bool {
	for _, p := range []string{"thread not loaded", "thread not found", "invalid thread id", "no rollout found"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// UnknownThread is UnknownThreadMessage of an error answer.
func UnknownThread(err error) bool {
	msg, ok := RPCMessage(err)
	return ok && UnknownThreadMessage(msg)
}

// The transient answers about a thread whose first turn was just started: for about 10 ms
// after that turn/start, while Codex creates the rollout, thread/turns/list answers "list_turns
// is not supported yet" (code -32601) and thread/read finds the rollout empty.
const (
	NotReadyTurnsList = "not supported yet"
	NotReadyRead      = "is empty"
)

// Bounds of RetryNotReady: 8 retries, 5 ms doubling up to 100 ms between them.
const (
	notReadyRetries  = 8
	notReadyBackoff  = 5 * time.Millisecond
	notReadyMaxDelay = 100 * time.Millisecond
)

// RetryNotReady calls call again, with backoff, while it fails with an error answer that
// contains transient (NotReadyTurnsList, NotReadyRead). The error of a thread for which the
// answer lasts, or of a context that ended, is returned unchanged.
func RetryNotReady[T any](ctx context.Context, transient string, call func() (T, error)) (T, error) {
	delay := notReadyBackoff
	for i := 0; ; i++ {
		res, err := call()
		if err == nil || i == notReadyRetries || !RPCHas(err, transient) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After(delay):
		}
		delay = min(2*delay, notReadyMaxDelay)
	}
}

// ModelStatus maps an App Server thread status type to codexhost's thread status. A type
// this version does not know maps to ifUnknown, the caller's reading of a thread in an
// unknown state (one its own App Server reports loaded is idle; one merely listed is
// notLoaded), and known is false, so that the caller can keep the raw type as the reason.
func ModelStatus(appStatus, ifUnknown string) (status string, known bool) {
	switch appStatus {
	case StatusActive:
		return model.ThreadActive, true
	case StatusIdle:
		return model.ThreadIdle, true
	case StatusSystemError:
		return model.ThreadSystemError, true
	case StatusNotLoaded:
		return model.ThreadNotLoaded, true
	}
	return ifUnknown, false
}
