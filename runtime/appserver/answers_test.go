package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// Every stored thread is reached once when thread/list is paged one thread at a time, the
// walk ends with the list, and a projection decodes only what it names.
func TestRealThreadPagerWalksEveryStoredThread(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	c := env.start(t)
	want := map[string]bool{}
	for i := range 3 {
		th := newThread(t, c)
		runTurn(t, c, th.ID, fmt.Sprintf("question %d", i))
		want[th.ID] = true
	}
	type idOnly struct {
		ID string `json:"id"`
	}
	pager := NewThreadPager[idOnly](c, ThreadListParams{Limit: 1, Archived: Unarchived(), UseStateDBOnly: true})
	got := map[string]int{}
	for !pager.Done() && pager.Pages() < 10 {
		page, err := pager.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 1 {
			t.Fatalf("a page of limit 1 held %d threads", len(page))
		}
		for _, th := range page {
			got[th.ID]++
		}
	}
	if !pager.Done() || pager.Looped() || pager.Cursor() != "" {
		t.Fatalf("after %d pages: done %v looped %v cursor %q", pager.Pages(), pager.Done(), pager.Looped(), pager.Cursor())
	}
	for id := range want {
		if got[id] != 1 {
			t.Fatalf("thread %s was listed %d times (all: %v)", id, got[id], got)
		}
	}
}

// pages is an App Server whose thread/list answers are scripted: the page at a cursor
// ("" first) has the given thread ids and next cursor; calls counts the requests.
type pages struct {
	at    map[string]Page[Thread]
	calls int
}

func (p *pages) Call(_ context.Context, method string, params, out any) error {
	p.calls++
	if method != MethodThreadList {
		return fmt.Errorf("unexpected %s", method)
	}
	b, _ := json.Marshal(params)
	var q ThreadListParams
	_ = json.Unmarshal(b, &q)
	res, _ := json.Marshal(p.at[q.Cursor])
	return json.Unmarshal(res, out)
}

func page(next string, ids ...string) Page[Thread] {
	pg := Page[Thread]{}
	for _, id := range ids {
		pg.Data = append(pg.Data, Thread{ID: id})
	}
	if next != "" {
		pg.NextCursor = &next
	}
	return pg
}

// A cursor that comes back, or an empty page that still names a next one, ends the walk as
// a loop instead of reading forever.
func TestThreadPagerEndsWhereThePagingDoesNotAdvance(t *testing.T) {
	t.Parallel()
	for name, script := range map[string]map[string]Page[Thread]{
		"cursor repeats": {"": page("a", "1"), "a": page("b", "2"), "b": page("a", "3")},
		"same cursor":    {"": page("a", "1"), "a": page("a", "2")},
		"empty page":     {"": page("a", "1"), "a": page("b")},
	} {
		t.Run(name, func(t *testing.T) {
			caller := &pages{at: script}
			pager := NewThreadPager[Thread](caller, ThreadListParams{Limit: 1})
			for !pager.Done() && pager.Pages() < 10 {
				if _, err := pager.Next(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if !pager.Looped() || pager.Pages() > len(script) {
				t.Fatalf("looped %v after %d pages of %d", pager.Looped(), pager.Pages(), len(script))
			}
		})
	}
	caller := &pages{at: map[string]Page[Thread]{"": page("x", "1"), "x": page("", "2")}}
	pager := NewThreadPager[Thread](caller, ThreadListParams{})
	for !pager.Done() {
		if _, err := pager.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if pager.Looped() || pager.Pages() != 2 {
		t.Fatalf("a list of two pages: looped %v, %d pages", pager.Looped(), pager.Pages())
	}
}

// answers fails with the given errors in turn, then succeeds.
type answers struct {
	errs  []error
	calls int
}

func (a *answers) next() (int, error) {
	a.calls++
	if a.calls <= len(a.errs) {
		return 0, a.errs[a.calls-1]
	}
	return a.calls, nil
}

func TestRetryNotReadyRidesOutOnlyTheTransientAnswer(t *testing.T) {
	t.Parallel()
	notReady := &RPCError{Code: -32601, Message: "list_turns is not supported yet"}
	other := &RPCError{Code: -32600, Message: "thread not found: x"}
	ctx := context.Background()

	a := &answers{errs: []error{notReady, notReady}}
	if n, err := RetryNotReady(ctx, NotReadyTurnsList, a.next); err != nil || n != 3 {
		t.Fatalf("two transient answers: %d %v", n, err)
	}
	a = &answers{errs: []error{other, notReady}}
	if _, err := RetryNotReady(ctx, NotReadyTurnsList, a.next); !errors.Is(err, other) || a.calls != 1 {
		t.Fatalf("another answer is returned at once: %v after %d calls", err, a.calls)
	}
	lasting := make([]error, 20)
	for i := range lasting {
		lasting[i] = notReady
	}
	a = &answers{errs: lasting}
	if _, err := RetryNotReady(ctx, NotReadyTurnsList, a.next); !errors.Is(err, notReady) || a.calls != notReadyRetries+1 {
		t.Fatalf("a lasting answer: %v after %d calls", err, a.calls)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	a = &answers{errs: lasting}
	if _, err := RetryNotReady(done, NotReadyTurnsList, a.next); !errors.Is(err, notReady) || a.calls != 1 {
		t.Fatalf("an ended context: %v after %d calls", err, a.calls)
	}
}

func TestModelStatusMapsKnownTypesAndReportsUnknownOnes(t *testing.T) {
	t.Parallel()
	for app, want := range map[string]string{StatusActive: model.ThreadActive, StatusIdle: model.ThreadIdle, StatusSystemError: model.ThreadSystemError, StatusNotLoaded: model.ThreadNotLoaded} {
		for _, fallback := range []string{model.ThreadIdle, model.ThreadNotLoaded} {
			if got, known := ModelStatus(app, fallback); got != want || !known {
				t.Fatalf("%s with fallback %s: %s %v", app, fallback, got, known)
			}
		}
	}
	for _, fallback := range []string{model.ThreadIdle, model.ThreadNotLoaded} {
		if got, known := ModelStatus("somethingNew", fallback); got != fallback || known {
			t.Fatalf("unknown with fallback %s: %s %v", fallback, got, known)
		}
	}
}

func TestUnknownThreadAndRPCAnswers(t *testing.T) {
	t.Parallel()
	for i, msg := range []string{"thread not loaded: x", "thread not found: x", "invalid thread id: x", "no rollout found for x"} {
		err := fmt.Errorf("wrapped %s: %w", strconv.Itoa(i), &RPCError{Message: msg})
		if !UnknownThread(err) || !IsRPC(err) {
			t.Fatalf("%q is not read as an unknown thread", msg)
		}
	}
	if UnknownThread(errors.New("thread not found")) || IsRPC(ErrExited) {
		t.Fatal("an error that is not an App Server answer was read as one")
	}
}
