package store

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

const (
	parentID = model.ThreadID("01a22aa4-73ba-7ac2-abd1-fae395dd0f33")
	childID  = model.ThreadID("01a22aa4-82c4-7a72-91a4-3f11e3043931")
	clientTh = model.ThreadID("01a22aa4-858c-7000-8000-000000000001")
)

func sampleDelegation(at time.Time) NewDelegation {
	d := &model.Delegation{V: 1, ID: "d-1", ParentThread: parentID, ChildThread: childID, ParentHarness: "codex", TargetHarness: "shell", Status: model.DelegationRunning, RequestID: "req-1", CreatedAt: at, UpdatedAt: at}
	return NewDelegation{
		Delegation: d,
		Origin:     model.Origin{V: 1, Thread: childID, Kind: model.OriginThread, ParentThread: parentID, DelegationID: "d-1", RequestID: "req-1", Refs: []string{"https://example.com/a", "https://example.com/b"}, CreatedAt: at},
		Thread:     model.ThreadRecord{V: 1, ID: childID, Harness: "shell", Cwd: "/work", CreatedAt: at, UpdatedAt: at, RecencyAt: at},
		RequestKey: RequestKey("thread:"+string(parentID), "req-1"),
	}
}

func sampleClientOrigin(at time.Time) NewDelegation {
	return NewDelegation{
		Origin:    model.Origin{V: 1, Thread: clientTh, Kind: model.OriginClient, Client: "grok-bot", Refs: []string{"https://example.com/a"}, CreatedAt: at},
		Thread:    model.ThreadRecord{V: 1, ID: clientTh, Harness: "codex", CreatedAt: at, UpdatedAt: at, RecencyAt: at},
		DedupeKey: model.DedupeKey("client:grok-bot", "codex", "some task"),
	}
}

// Scenario: S000-19 — after a restart, parent/child ids or client name, harness, status and
// refs come back from the records.
func TestS000_19_DelegationsOriginsAndRefsSurviveRestart(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	if err := s.SaveDelegation(sampleDelegation(at)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDelegation(sampleClientOrigin(at)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDelegationStatus(childID, model.DelegationCompleted, at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.DelegationOfChild(childID)
	if err != nil || d.ParentThread != parentID || d.TargetHarness != "shell" || d.ParentHarness != "codex" || d.Status != model.DelegationCompleted || d.RequestID != "req-1" {
		t.Fatalf("delegation after restart: %+v %v", d, err)
	}
	o, err := s.Origin(clientTh)
	if err != nil || o.Kind != model.OriginClient || o.Client != "grok-bot" || len(o.Refs) != 1 {
		t.Fatalf("client origin after restart: %+v %v", o, err)
	}
	o, err = s.Origin(childID)
	if err != nil || strings.Join(o.Refs, " ") != "https://example.com/a https://example.com/b" {
		t.Fatalf("refs after restart: %+v %v", o, err)
	}
	children, _ := s.ChildrenOf(parentID)
	ofClient, _ := s.ThreadsOfClient("grok-bot")
	withRef, _ := s.ThreadsWithRef("https://example.com/a")
	if len(children) != 1 || children[0] != childID || len(ofClient) != 1 || ofClient[0] != clientTh || len(withRef) != 2 {
		t.Fatalf("indexes after restart: children %v client %v ref %v", children, ofClient, withRef)
	}
	e, ok, err := s.Idempotent(RequestKey("thread:"+string(parentID), "req-1"), "", at.Add(time.Hour), time.Second)
	if err != nil || !ok || e.Thread != childID {
		t.Fatalf("request id after restart: %+v %v %v", e, ok, err)
	}
}

// frozenDelegationV1 is a copy of the delegation decoder as the first release shipped it. It
// must keep reading what later builds write, and a rewrite through it must keep their fields.
type frozenDelegationV1 struct {
	Record
	ID            string `json:"id"`
	ParentThread  string `json:"parentThread"`
	ChildThread   string `json:"childThread"`
	ParentHarness string `json:"parentHarness"`
	TargetHarness string `json:"targetHarness"`
	Status        string `json:"status"`
	RequestID     string `json:"requestId,omitempty"`
}

// Scenario: S000-20 — an older build still reads delegation relations; client-origin and ref
// records never make it drop or rewrite them.
func TestS000_20_OlderBuildReadsDelegationsDespiteOriginsAndRefs(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	at := time.Now().UTC()
	if err := s.SaveDelegation(sampleDelegation(at)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDelegation(sampleClientOrigin(at)); err != nil {
		t.Fatal(err)
	}
	// A newer build adds a field to the delegation itself.
	if err := s.Update(func(tx *Tx) error {
		raw, err := tx.GetRaw(PrefixDelegation, "d-1")
		if err != nil {
			return err
		}
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(raw, &obj)
		obj["priority"] = json.RawMessage(`3`)
		b, _ := json.Marshal(obj)
		return tx.PutRaw(PrefixDelegation, "d-1", b)
	}); err != nil {
		t.Fatal(err)
	}

	var seen []frozenDelegationV1
	if err := s.Scan(PrefixDelegation, func(id string, raw []byte) error {
		var d frozenDelegationV1
		if err := decode(raw, &d); err != nil {
			return err
		}
		seen = append(seen, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].ChildThread != string(childID) || seen[0].ParentThread != string(parentID) || seen[0].Status != model.DelegationRunning {
		t.Fatalf("the old decoder saw %+v", seen)
	}
	// The old build updates the status; the newer field and nothing else is lost.
	old := seen[0]
	old.Status = model.DelegationCompleted
	if err := s.Put(PrefixDelegation, old.ID, &old); err != nil {
		t.Fatal(err)
	}
	d, err := s.Delegation("d-1")
	if err != nil || d.Status != model.DelegationCompleted || d.CreatedAt.IsZero() {
		t.Fatalf("after the old build's rewrite: %+v %v", d, err)
	}
	raw, _ := getRaw(s, PrefixDelegation, "d-1")
	if !strings.Contains(string(raw), `"priority":3`) {
		t.Fatalf("the old build dropped a newer field: %s", raw)
	}
	// Origins and refs are untouched by it.
	if o, err := s.Origin(clientTh); err != nil || o.Client != "grok-bot" {
		t.Fatalf("client origin: %+v %v", o, err)
	}
}

func TestDedupeWindowAndRequestScope(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	at := time.Now().UTC()
	n := sampleClientOrigin(at)
	if err := s.SaveDelegation(n); err != nil {
		t.Fatal(err)
	}
	if e, ok, _ := s.Idempotent("", n.DedupeKey, at.Add(10*time.Second), 30*time.Second); !ok || e.Thread != clientTh {
		t.Fatal("duplicate inside the window not found")
	}
	if _, ok, _ := s.Idempotent("", n.DedupeKey, at.Add(31*time.Second), 30*time.Second); ok {
		t.Fatal("duplicate found after the window")
	}
	// A request id is scoped to its origin.
	if _, ok, _ := s.Idempotent(RequestKey("client:other", "req-1"), "", at, time.Minute); ok {
		t.Fatal("request id of another origin matched")
	}
	if _, err := s.Delegation("missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing delegation: %v", err)
	}
}

func getRaw(s *Store, prefix, id string) ([]byte, error) {
	var out []byte
	err := s.View(func(tx *Tx) error {
		b, err := tx.GetRaw(prefix, id)
		out = b
		return err
	})
	return out, err
}
