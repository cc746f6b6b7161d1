package codexfixture

import (
	"context"
	"testing"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// Many makes n threads in codexHome, as a home of several pages of sessions: each a fork of
// seed without its turns (a fork is cheap, a turn is not), named name(i), made one after the
// other so that thread i is newer than thread i-1. One App Server of its own makes them all
// and is stopped before returning. It returns their ids in the order made.
func Many(t testing.TB, codexHome, seed string, n int, name func(i int) string) []string {
	t.Helper()
	ctx := context.Background()
	c := start(t, codexHome)
	defer c.Close()
	ids := make([]string, n)
	for i := range ids {
		res, err := c.ThreadFork(ctx, appserver.ThreadForkParams{ThreadID: seed, ExcludeTurns: true})
		if err == nil {
			err = c.ThreadSetName(ctx, res.Thread.ID, name(i))
		}
		if err == nil {
			_, err = c.ThreadUnsubscribe(ctx, res.Thread.ID)
		}
		if err != nil {
			t.Fatalf("thread %d of %d: %v", i, n, err)
		}
		ids[i] = res.Thread.ID
	}
	return ids
}
