package catalog

import (
	"context"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A host down for want of codex is retried at once after RetryUnavailable, with its health
// unknown until then; other failures keep their backoff.
func TestRetryUnavailableEndsTheBackoffOfHostsWithoutCodex(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	missing := model.Errorf(model.CodeAppServerUnavailable, "install codex", "the codex binary was not found")
	starts := 0
	src := SourceFunc(func(context.Context) (Conn, error) { starts++; return nil, missing })
	cat, err := New([]HostSpec{{ID: LocalHostID, Default: true, Source: src}}, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	h := cat.hosts[0]
	ctx := context.Background()
	if _, err := cat.conn(ctx, ctx, h); !model.IsCode(err, model.CodeAppServerUnavailable) || starts != 1 {
		t.Fatalf("first attempt: %v (%d starts)", err, starts)
	}
	if _, err := cat.conn(ctx, ctx, h); err == nil || starts != 1 {
		t.Fatalf("the backoff should hold the second attempt: %v (%d starts)", err, starts)
	}
	if hv := h.healthView(); hv.State != api.CatalogHealthError {
		t.Fatalf("health while backing off: %+v", hv)
	}
	if n := cat.RetryUnavailable(); n != 1 {
		t.Fatalf("cleared %d hosts", n)
	}
	if hv := h.healthView(); hv.State != api.CatalogHealthUnknown {
		t.Fatalf("health after the retry was asked for: %+v", hv)
	}
	if _, err := cat.conn(ctx, ctx, h); err == nil || starts != 2 {
		t.Fatalf("the host should be tried at once: %v (%d starts)", err, starts)
	}

	// A host that refused for another reason keeps its backoff.
	h.hmu.Lock()
	h.health.err = model.Errorf(model.CodeFailedPrecondition, "", "refused")
	h.hmu.Unlock()
	if n := cat.RetryUnavailable(); n != 0 {
		t.Fatalf("cleared %d hosts that failed otherwise", n)
	}
}
