package store

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// CloseOnSignal closes s when the process receives SIGINT or SIGTERM, then calls onClose (if
// not nil) with Close's result; onClose typically ends the process. Until then those signals no
// longer terminate the process by default; once one arrives the default handling is restored
// at once, so a second signal still ends a process whose shutdown hangs.
//
// Cancelling ctx or calling stop stops watching without closing the store. stop does not wait
// and may be called more than once, also from onClose.
func CloseOnSignal(ctx context.Context, s *Store, onClose func(error)) (stop func()) {
	sigCtx, unregister := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	var (
		mu      sync.Mutex
		stopped bool
	)
	go func() {
		<-sigCtx.Done()
		unregister()
		mu.Lock()
		byStop := stopped
		mu.Unlock()
		if byStop || ctx.Err() != nil {
			return
		}
		err := s.Close()
		if onClose != nil {
			onClose(err)
		}
	}()
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		unregister()
	}
}
