package threads_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S000-24
func TestS000_24_ListDefaultsToCallerCwd25RowsNewestFirst(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	here, elsewhere := t.TempDir(), t.TempDir()
	var mine, other []string // in creation order
	for i := range 30 {
		res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: fmt.Sprintf("here %d", i), Cwd: here})
		mine = append(mine, res.Thread.ID)
	}
	for i := range 3 {
		res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: fmt.Sprintf("elsewhere %d", i), Cwd: elsewhere})
		other = append(other, res.Thread.ID)
	}
	newestFirst := slices.Clone(mine)
	slices.Reverse(newestFirst)

	// A runtime caller without --cwd, --limit or --sort: its own cwd, 25 rows, created-desc.
	caller := api.CallerHint{Cwd: here}
	page := hosttest.Call[api.ThreadListResult](t, rt, api.MethodThreadList, api.ThreadListParams{Caller: caller})
	if got := hosttest.ThreadIDs(page.Threads); !slices.Equal(got, newestFirst[:25]) {
		t.Fatalf("first page:\n%v\nwant\n%v", got, newestFirst[:25])
	}
	for i, row := range page.Threads {
		if row.Cwd != here {
			t.Fatalf("row %d from %s", i, row.Cwd)
		}
		if i > 0 && row.CreatedAt.After(page.Threads[i-1].CreatedAt) {
			t.Fatalf("row %d is newer than the row before it", i)
		}
	}
	if page.NextCursor == "" {
		t.Fatal("no nextCursor with 5 rows left")
	}
	rest := hosttest.Call[api.ThreadListResult](t, rt, api.MethodThreadList, api.ThreadListParams{Caller: caller, Cursor: page.NextCursor})
	if got := hosttest.ThreadIDs(rest.Threads); !slices.Equal(got, newestFirst[25:]) || rest.NextCursor != "" {
		t.Fatalf("second page %v (next %q), want %v", got, rest.NextCursor, newestFirst[25:])
	}

	// --limit takes up to 100; above is refused.
	all := hosttest.Call[api.ThreadListResult](t, rt, api.MethodThreadList, api.ThreadListParams{Caller: caller, Limit: 100})
	if len(all.Threads) != 30 || all.NextCursor != "" {
		t.Fatalf("--limit 100: %d rows, next %q", len(all.Threads), all.NextCursor)
	}
	me := hosttest.CallErr(t, rt, api.MethodThreadList, api.ThreadListParams{Caller: caller, Limit: 101}, model.CodeInvalidArgument)
	if !strings.Contains(me.Hint, "100") {
		t.Fatalf("limit error does not say the maximum: %+v", me)
	}

	// Through the client listener there is no cwd default.
	ids, pages := hosttest.ListAll(t, c, api.ThreadListParams{Caller: caller})
	want := append(slices.Clone(mine), other...)
	slices.Reverse(want)
	if !slices.Equal(ids, want) || pages != 2 {
		t.Fatalf("client list over %d pages:\n%v\nwant\n%v", pages, ids, want)
	}
	// An explicit --cwd applies to both.
	for _, cl := range []*api.Client{c, rt} {
		res := hosttest.Call[api.ThreadListResult](t, cl, api.MethodThreadList, api.ThreadListParams{Caller: caller, Cwd: elsewhere})
		if got := hosttest.ThreadIDs(res.Threads); !hosttest.SameSet(got, other) {
			t.Fatalf("--cwd elsewhere: %v, want %v", got, other)
		}
	}
	// Paging the other way round visits every row once, oldest first.
	asc, _ := hosttest.ListAll(t, rt, api.ThreadListParams{Caller: caller, Sort: "created-asc", Limit: 7})
	if !slices.Equal(asc, mine) {
		t.Fatalf("created-asc pages: %v", asc)
	}
}

// Scenario: S000-25
func TestS000_25_ListByParentFromDelegationRecords(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	p := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent p", Cwd: cwd})
	q := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent q", Cwd: cwd})
	var kids []string
	for i := range 5 {
		res := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: p.Thread.ID}, Harness: "shell", Task: fmt.Sprintf("p child %d", i), Cwd: cwd})
		kids = append(kids, res.Thread.ID)
	}
	for i := range 2 {
		hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: q.Thread.ID}, Harness: "shell", Task: fmt.Sprintf("q child %d", i), Cwd: cwd})
	}
	// A grandchild is not a child of p.
	hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: kids[0]}, Harness: "shell", Task: "grandchild", Cwd: cwd})

	res := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{Parent: p.Thread.ID})
	newestFirst := slices.Clone(kids)
	slices.Reverse(newestFirst)
	if got := hosttest.ThreadIDs(res.Threads); !slices.Equal(got, newestFirst) || res.NextCursor != "" {
		t.Fatalf("--parent p: %v, want %v", got, newestFirst)
	}
	for _, row := range res.Threads {
		if row.Origin == nil || row.Origin.ParentThread != p.Thread.ID || row.Origin.DelegationID == "" {
			t.Fatalf("row origin %+v", row.Origin)
		}
	}
	// With --limit, --cursor and --sort.
	asc, pages := hosttest.ListAll(t, c, api.ThreadListParams{Parent: p.Thread.ID, Sort: "created-asc", Limit: 2})
	if !slices.Equal(asc, kids) || pages != 3 {
		t.Fatalf("--parent created-asc by 2: %v over %d pages", asc, pages)
	}
	desc, pages := hosttest.ListAll(t, c, api.ThreadListParams{Parent: p.Thread.ID, Sort: "created-desc", Limit: 2})
	if !slices.Equal(desc, newestFirst) || pages != 3 {
		t.Fatalf("--parent created-desc by 2: %v over %d pages", desc, pages)
	}
	for _, s := range []string{"updated-desc", "recency-asc"} {
		got, _ := hosttest.ListAll(t, c, api.ThreadListParams{Parent: p.Thread.ID, Sort: s, Limit: 3})
		if !hosttest.SameSet(got, kids) || len(got) != len(kids) {
			t.Fatalf("--parent --sort %s: %v", s, got)
		}
	}
	// A thread without children lists none: an empty array, not null.
	raw := string(hosttest.CallRaw(t, c, api.MethodThreadList, api.ThreadListParams{Parent: kids[4]}))
	if !strings.Contains(raw, `"threads":[]`) || strings.Contains(raw, "nextCursor") {
		t.Fatalf("--parent of a childless thread: %s", raw)
	}
}

// Scenario: S000-26
func TestS000_26_ListByClientAndRefFromRecords(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"alpha", "beta"}, Grants: map[string]config.Grant{"auditor": {Scopes: []string{config.ScopeRead}}}})
	alpha, beta, rt := th.Client("alpha"), th.Client("beta"), th.RuntimeClient()
	// Listing other clients' threads needs operator.read; alpha alone sees only its own.
	auditor := th.Client("auditor")
	cwd := t.TempDir()
	start := func(c *api.Client, task string, refs ...string) string {
		return hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: task, Refs: refs, Cwd: cwd}).Thread.ID
	}
	a1 := start(alpha, "a1", refA)
	a2 := start(alpha, "a2", refB)
	a3 := start(alpha, "a3")
	b1 := start(beta, "b1", refA)
	b2 := start(beta, "b2")
	// A child of a1 carries refA by inheritance; its origin is a thread, not alpha.
	child := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: a1}, Harness: "shell", Task: "a1 child", Refs: []string{refC}, Cwd: cwd}).Thread.ID

	for _, tc := range []struct {
		name string
		p    api.ThreadListParams
		want []string
	}{
		{"client alpha", api.ThreadListParams{Client: "alpha"}, []string{a1, a2, a3}},
		{"client beta", api.ThreadListParams{Client: "beta"}, []string{b1, b2}},
		{"client nobody", api.ThreadListParams{Client: "nobody"}, nil},
		{"ref A", api.ThreadListParams{Ref: refA}, []string{a1, b1, child}},
		{"ref A with credentials", api.ThreadListParams{Ref: "https://user:pw@GitHub.com/o/r/issues/12"}, []string{a1, b1, child}},
		{"ref B", api.ThreadListParams{Ref: refB}, []string{a2}},
		{"ref C", api.ThreadListParams{Ref: refC}, []string{child}},
		{"ref nobody has", api.ThreadListParams{Ref: "https://example.com/none"}, nil},
		{"client and ref", api.ThreadListParams{Client: "alpha", Ref: refA}, []string{a1}},
		{"parent and ref", api.ThreadListParams{Parent: a1, Ref: refC}, []string{child}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, limit := range []int{0, 1, 2} {
				p := tc.p
				p.Limit = limit
				got, pages := hosttest.ListAll(t, auditor, p)
				if !hosttest.SameSet(got, tc.want) || len(got) != len(tc.want) {
					t.Fatalf("limit %d: %v, want %v", limit, got, tc.want)
				}
				if limit == 1 && len(tc.want) > 1 && pages != len(tc.want) {
					t.Fatalf("limit 1: %d pages for %d rows", pages, len(tc.want))
				}
			}
			asc, _ := hosttest.ListAll(t, auditor, api.ThreadListParams{Client: tc.p.Client, Ref: tc.p.Ref, Parent: tc.p.Parent, Sort: "created-asc", Limit: 1})
			desc, _ := hosttest.ListAll(t, auditor, api.ThreadListParams{Client: tc.p.Client, Ref: tc.p.Ref, Parent: tc.p.Parent, Sort: "created-desc", Limit: 1})
			slices.Reverse(desc)
			if !slices.Equal(asc, desc) {
				t.Fatalf("created-asc %v is not created-desc reversed %v", asc, desc)
			}
		})
	}
	// Rows found by ref carry their refs, inherited ones first.
	res := hosttest.Call[api.ThreadListResult](t, alpha, api.MethodThreadList, api.ThreadListParams{Ref: refC})
	if len(res.Threads) != 1 || !slices.Equal(res.Threads[0].Refs, []string{refA, refC}) {
		t.Fatalf("--ref C row: %+v", res.Threads)
	}
}
