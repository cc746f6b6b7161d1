package catalog

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Issue 28 (fleet mark): a thread whose approval request waits in this runtime is listed as
// active and waiting on approval, even after a status change seen from the harness (which
// carries no flag) and although its App Server page says idle; once nothing waits it is
// listed as seen again.
func TestRuntimeHeldApprovalMarksTheRow(t *testing.T) {
	conn := &fakeConn{}
	for i := range 3 {
		conn.threads = append(conn.threads, fakeThread(i, fmt.Sprintf("thread %d", i)))
	}
	var mu sync.Mutex
	waiting := map[string]bool{}
	cat, err := New([]HostSpec{{ID: LocalHostID, Default: true, Source: &fakeSource{conn: conn},
		Waiting: func(id string) bool { mu.Lock(); defer mu.Unlock(); return waiting[id] }}}, Options{ReadAheadPages: -1})
	if err != nil {
		t.Fatal(err)
	}
	list := func() []api.CatalogSession {
		res, err := cat.List(context.Background(), api.CatalogSessionsParams{Host: LocalHostID}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hosts[0].Sessions
	}
	rows := list()
	id := rows[1].ID
	mu.Lock()
	waiting[id] = true
	mu.Unlock()
	cat.ObserveStatus(LocalHostID, id, model.ThreadActive)
	rows = list()
	if !rows[1].WaitingOnApproval || rows[1].Status != model.ThreadActive || rows[0].WaitingOnApproval || rows[2].WaitingOnApproval {
		t.Fatalf("while the approval waits: %+v", rows)
	}
	mu.Lock()
	waiting[id] = false
	mu.Unlock()
	if rows = list(); rows[1].WaitingOnApproval || rows[1].Status != model.ThreadActive {
		t.Fatalf("after the answer: %+v", rows[1])
	}
}
