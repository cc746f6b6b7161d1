package runtime

import (
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// inflightLimit lifts the per-connection request limit of the runtime API for the home's
// operator client: a follower runtime forwards every request of its own clients over one
// connection as that client, and each of those is already limited where it came in.
func inflightLimit(c api.Caller) int {
	if c.Kind == api.CallerClient && c.Client == config.OperatorClient {
		return -1
	}
	return 0
}
