package hosttest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/store"
)

// Call invokes method and decodes its result into a T.
func Call[T any](t testing.TB, c *api.Client, method string, params any) T {
	t.Helper()
	var out T
	if err := c.Call(context.Background(), method, params, &out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return out
}

// CallRaw invokes method and returns its result as JSON, to check the wire shape.
func CallRaw(t testing.TB, c *api.Client, method string, params any) json.RawMessage {
	t.Helper()
	return Call[json.RawMessage](t, c, method, params)
}

// CallErr invokes method, which must fail with code, a message and a hint.
func CallErr(t testing.TB, c *api.Client, method string, params any, code model.Code) *model.Error {
	t.Helper()
	err := c.Call(context.Background(), method, params, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != code {
		t.Fatalf("%s: want %s, got %v", method, code, err)
	}
	if me.Message == "" || me.Hint == "" {
		t.Fatalf("%s: %s without message or hint: %+v", method, code, me)
	}
	return me
}

// Delegate starts a thread through delegate.start.
func Delegate(t testing.TB, c *api.Client, p api.DelegateStartParams) api.DelegateStartResult {
	t.Helper()
	return Call[api.DelegateStartResult](t, c, api.MethodDelegateStart, p)
}

// ReadThread reads a thread through thread.read.
func ReadThread(t testing.TB, c *api.Client, id string) api.ThreadReadResult {
	t.Helper()
	return Call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id})
}

// WaitStopped waits until the thread has no turn running and returns the wait result.
func WaitStopped(t testing.TB, c *api.Client, id string) api.ThreadReadResult {
	t.Helper()
	res := Call[api.ThreadReadResult](t, c, api.MethodThreadWait, api.ThreadWaitParams{
		ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(int(Wait / time.Millisecond))})
	if res.TimedOut == nil || *res.TimedOut {
		t.Fatalf("thread %s still running after %v: %+v", id, Wait, res.Thread)
	}
	return res
}

// ListAll follows nextCursor until the last page and returns every id in order.
func ListAll(t testing.TB, c *api.Client, p api.ThreadListParams) ([]string, int) {
	t.Helper()
	var ids []string
	pages := 0
	for {
		res := Call[api.ThreadListResult](t, c, api.MethodThreadList, p)
		pages++
		for _, th := range res.Threads {
			ids = append(ids, th.ID)
		}
		if res.NextCursor == "" {
			return ids, pages
		}
		if pages > 100 {
			t.Fatal("list never ends")
		}
		p.Cursor = res.NextCursor
	}
}

// Eventually polls cond every 10 ms until it holds or Wait passes.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	PollUntil(t, what, Wait, 10*time.Millisecond, cond)
}

// PollUntil polls cond every interval until it holds or wait passes.
func PollUntil(t testing.TB, what string, wait, interval time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(interval)
	}
}

// OpenGate lets the "slow" harness's running turn in dir finish.
func OpenGate(t testing.TB, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// FakeClock is an injected clock that moves only when told.
type FakeClock struct{ ns atomic.Int64 }

// NewFakeClock returns a clock standing at at.
func NewFakeClock(at time.Time) *FakeClock {
	c := &FakeClock{}
	c.ns.Store(at.UnixNano())
	return c
}

func (c *FakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *FakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// CodexhostVars returns the CODEXHOST_* entries of an environment (NUL- or newline-separated).
func CodexhostVars(env string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.FieldsFunc(env, func(r rune) bool { return r == 0 || r == '\n' }) {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(strings.ToUpper(k), "CODEXHOST_") {
			out[k] = v
		}
	}
	return out
}

// Stored is a stored Codex thread with one completed turn, loaded by no App Server.
func Stored(t testing.TB, codexHome, text string) string {
	t.Helper()
	id, _ := codexfixture.StoredThread(t, codexHome, "", text)
	return id
}

// ReadStore reads every key and value of a closed home's database.
func ReadStore(t testing.TB, home string) map[string]string {
	t.Helper()
	opts := badger.DefaultOptions(filepath.Join(home, store.DBDir)).WithLogger(nil).WithReadOnly(true)
	// A child forked by a parallel test may still keep the closed runtime's lock until it
	// execs (badger closes its lock without unlocking): wait that out.
	db, err := badger.Open(opts)
	for deadline := time.Now().Add(2 * time.Second); err != nil && strings.Contains(err.Error(), "Cannot acquire directory lock") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		db, err = badger.Open(opts)
	}
	if err != nil {
		t.Fatalf("open the store read-only: %v", err)
	}
	defer db.Close()
	out := map[string]string{}
	err = db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().KeyCopy(nil))] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
