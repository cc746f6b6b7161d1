package codexfixture

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// Many makes n threads in codexHome, as a home of several pages of sessions: each a fork of
// seed without its turns (a fork is cheap, a turn is not), named name(i). Four forks are in
// flight at once on one App Server of its own, stopped before returning, so the order of
// threads made together is not fixed: callers read the order from the catalog. It returns
// their ids, thread i named name(i).
func Many(t testing.TB, codexHome, seed string, n int, name func(i int) string) []string {
	t.Helper()
	ctx := context.Background()
	c := start(t, codexHome)
	defer c.Close()
	ids := make([]string, n)
	errs := make([]error, n)
	slots := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i := range ids {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			res, err := c.ThreadFork(ctx, appserver.ThreadForkParams{ThreadID: seed, ExcludeTurns: true})
			if err == nil {
				err = c.ThreadSetName(ctx, res.Thread.ID, name(i))
			}
			if err == nil {
				_, err = c.ThreadUnsubscribe(ctx, res.Thread.ID)
			}
			if err != nil {
				errs[i] = fmt.Errorf("thread %d of %d: %w", i, n, err)
				return
			}
			ids[i] = res.Thread.ID
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return ids
}
