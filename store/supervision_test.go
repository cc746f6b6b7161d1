package store

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

const (
	supThread = model.ThreadID("01a22aa4-9000-7000-8000-000000000001")
	supSource = model.ThreadID("01a22aa4-9000-7000-8000-000000000002")
	supCanon  = model.ThreadID("01a22aa4-9000-7000-8000-000000000003")
)

func sampleSupervision(at time.Time) (model.Supervision, model.ThreadRecord) {
	return model.Supervision{V: 1, Thread: supThread, Host: "gateway:local", Source: supSource, State: model.SupervisionPending, Cwd: "/work", CreatedAt: at, UpdatedAt: at},
		model.ThreadRecord{V: 1, ID: supThread, Harness: model.NativeHarness, Cwd: "/work", CreatedAt: at, UpdatedAt: at, RecencyAt: at}
}

// Scenario: S003-04 — the binding source → supervised thread is durable: a second create for
// the same source returns the first thread, and pending then bound survive a restart.
func TestS003_04_SupervisionBindingIsDurableAndUniquePerSource(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	sup, rec := sampleSupervision(at)
	got, created, err := s.CreateSupervision(sup, rec)
	if err != nil || !created || got.Thread != supThread {
		t.Fatalf("create: %+v %v %v", got, created, err)
	}
	other := sup
	other.Thread = "01a22aa4-9000-7000-8000-0000000000ff"
	otherRec := rec
	otherRec.ID = other.Thread
	got, created, err = s.CreateSupervision(other, otherRec)
	if err != nil || created || got.Thread != supThread {
		t.Fatalf("second create for the same source: %+v %v %v", got, created, err)
	}
	if _, err := s.Thread(other.Thread); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the refused duplicate registered a thread: %v", err)
	}
	// Another host's thread with the same id is another source.
	other.Host = "gateway:local:abc"
	if _, created, err := s.CreateSupervision(other, otherRec); err != nil || !created {
		t.Fatalf("same id on another host: %v %v", created, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err = s.SupervisionOfSource("gateway:local", supSource)
	if err != nil || got.Thread != supThread || got.State != model.SupervisionPending {
		t.Fatalf("pending after restart: %+v %v", got, err)
	}
	if tr, err := s.Thread(supThread); err != nil || tr.Harness != model.NativeHarness || tr.Cwd != "/work" {
		t.Fatalf("thread record: %+v %v", tr, err)
	}
	if _, err := s.SupervisionOfCanonical(supCanon); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a pending thread has a canonical index: %v", err)
	}
	bound, err := s.BindSupervision(supThread, supCanon, "mock-model", "fake", at.Add(time.Minute))
	if err != nil || bound.State != model.SupervisionBound || bound.Canonical != supCanon || bound.Model != "mock-model" || bound.ModelProvider != "fake" {
		t.Fatalf("bind: %+v %v", bound, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err = s.SupervisionOfCanonical(supCanon)
	if err != nil || got.Thread != supThread || got.State != model.SupervisionBound || !got.BoundAt.Equal(at.Add(time.Minute)) {
		t.Fatalf("bound after restart: %+v %v", got, err)
	}
	if tr, _ := s.Thread(supThread); tr.Model != "mock-model" {
		t.Fatalf("thread record model %q", tr.Model)
	}
}

// Scenario: S003-09 — a bound supervised thread is model-locked: binding it again to another
// thread or another model pair is refused and changes nothing.
func TestS003_09_RebindingIsRefused(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	at := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	sup, rec := sampleSupervision(at)
	if _, _, err := s.CreateSupervision(sup, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BindSupervision(supThread, supCanon, "mock-model", "fake", at); err != nil {
		t.Fatal(err)
	}
	// The same commit again (a retried call) is not a rebinding.
	if got, err := s.BindSupervision(supThread, supCanon, "mock-model", "fake", at.Add(time.Hour)); err != nil || !got.BoundAt.Equal(at) {
		t.Fatalf("repeated bind: %+v %v", got, err)
	}
	for _, c := range []struct {
		canon        model.ThreadID
		name, provid string
	}{
		{"01a22aa4-9000-7000-8000-000000000004", "mock-model", "fake"},
		{supCanon, "gpt-5.5", "fake"},
		{supCanon, "mock-model", "openai"},
	} {
		if _, err := s.BindSupervision(supThread, c.canon, c.name, c.provid, at); !errors.Is(err, ErrRebind) {
			t.Fatalf("rebind to %+v: %v", c, err)
		}
	}
	got, err := s.Supervision(supThread)
	if err != nil || got.Canonical != supCanon || got.Model != "mock-model" || got.ModelProvider != "fake" {
		t.Fatalf("after refused rebinds: %+v %v", got, err)
	}
	if _, err := s.SupervisionOfCanonical("01a22aa4-9000-7000-8000-000000000004"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused rebind left an index: %v", err)
	}
}

// A record written by a newer build keeps its unknown fields through a bind.
func TestSupervisionKeepsUnknownFields(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	at := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	sup, rec := sampleSupervision(at)
	if _, _, err := s.CreateSupervision(sup, rec); err != nil {
		t.Fatal(err)
	}
	raw, err := getRaw(s, PrefixSupervision, string(supThread))
	if err != nil {
		t.Fatal(err)
	}
	newer := append(raw[:len(raw)-1:len(raw)-1], []byte(`,"scope":"user"}`)...)
	if err := s.Update(func(tx *Tx) error { return tx.PutRaw(PrefixSupervision, string(supThread), newer) }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BindSupervision(supThread, supCanon, "mock-model", "fake", at); err != nil {
		t.Fatal(err)
	}
	var r SupervisionRecord
	if err := s.Get(PrefixSupervision, string(supThread), &r); err != nil {
		t.Fatal(err)
	}
	if f := r.Fields(); len(f) != 1 || f[0] != "scope" || r.State != model.SupervisionBound {
		t.Fatalf("fields %v state %s", f, r.State)
	}
}
