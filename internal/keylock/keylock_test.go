package keylock

import (
	"sync"
	"testing"
)

// Holders of one key never overlap, another key is not held up by them, and no key is kept
// once it is released.
func TestOneKeyTakesTurnsOthersDoNotWait(t *testing.T) {
	var l Locks
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock := l.Lock("a")
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	unlockA := l.Lock("a")
	// Another key is taken while "a" is held: Lock would block forever otherwise.
	unlockB := l.Lock("b")
	unlockB()
	unlockA()
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d holders of one key at once", most)
	}
	if n := l.keys(); n != 0 {
		t.Fatalf("%d keys kept after every holder released", n)
	}
}
