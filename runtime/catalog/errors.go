package catalog

import (
	"context"
	"errors"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

const (
	// The cause is not passed on (it names paths), so the hint leads to the command that
	// shows it on the runtime's machine, whether or not a runtime keeps running to retry.
	unavailableHint = "`codexhost codex status` shows why no App Server starts and the fix (`codexhost codex install` installs the pinned Codex); a running runtime retries the host after a short backoff, and its log has the cause"
	refusedHint     = "retry; if this persists, check the runtime's log"
)

// hostError is the clean form of a failure to reach or use a host's App Server. Raw errors
// name binaries, log files and Codex homes, so none of their text is passed on.
func hostError(err error) *model.Error {
	var rpc *appserver.RPCError
	if model.IsCode(err, model.CodeNodeOffline) || model.IsCode(err, model.CodeNodeInvokeFailed) {
		// Made by NodeSource from the node's own clean answers.
		var me *model.Error
		errors.As(err, &me)
		return me
	}
	switch {
	case errors.Is(err, appserver.ErrExited):
		return model.Errorf(model.CodeAppServerUnavailable, unavailableHint, "the host's Codex App Server exited")
	case errors.Is(err, context.DeadlineExceeded):
		return model.Errorf(model.CodeAppServerUnavailable, unavailableHint, "the host's Codex App Server did not answer in time")
	case errors.Is(err, context.Canceled):
		return model.Errorf(model.CodeAppServerUnavailable, unavailableHint, "the request to the host was cancelled")
	case errors.As(err, &rpc):
		return model.Errorf(model.CodeAppServerUnavailable, refusedHint, "the host's Codex App Server refused the request")
	}
	if model.IsCode(err, model.CodeAppServerUnavailable) {
		return model.Errorf(model.CodeAppServerUnavailable, unavailableHint, "the host's Codex App Server could not be started")
	}
	return model.Errorf(model.CodeAppServerUnavailable, unavailableHint, "the host could not be reached")
}

// isHostFailure tells failures of the App Server itself from its answers about one thread.
func isHostFailure(err error) bool { return !appserver.IsRPC(err) }

func threadNotFound(id model.ThreadID, hostID string) *model.Error {
	return model.Errorf(model.CodeThreadNotFound, "check the id with `codexhost sessions`; pass --host for a thread of another host",
		"no Codex thread %s on host %s", id, hostID)
}

// threadRefused is the clean error of an App Server refusing a request about a thread.
func threadRefused(what string) *model.Error {
	return model.Errorf(model.CodeFailedPrecondition, refusedHint, "the host's Codex App Server refused to %s", what)
}
