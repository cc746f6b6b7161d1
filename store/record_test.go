package store

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// What a newer binary writes, and what this (older) binary knows of it.
type delegationV2 struct {
	Record
	Parent   string         `json:"parent"`
	Note     string         `json:"note,omitempty"`
	Deadline string         `json:"deadline"`
	Limits   map[string]int `json:"limits"`
}

type delegationV1 struct {
	Record
	Parent string `json:"parent"`
	Note   string `json:"note,omitempty"`
}

func rawObject(t *testing.T, s *Store, prefix, id string) map[string]any {
	t.Helper()
	var raw []byte
	err := s.View(func(tx *Tx) error {
		var err error
		raw, err = tx.GetRaw(prefix, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("stored value %s: %v", raw, err)
	}
	return obj
}

func TestOlderBinaryKeepsNewerFieldsAndPrefixes(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	newer := delegationV2{Record: Record{V: 2}, Parent: "p1", Note: "n", Deadline: "2030-01-01T00:00:00Z",
		Limits: map[string]int{"turns": 3}}
	if err := s.Put("deleg", "d1", newer); err != nil {
		t.Fatal(err)
	}
	// A kind this binary does not know, and one whose name extends a known prefix.
	err := s.Update(func(tx *Tx) error {
		if err := tx.PutRaw("future", "f1", []byte(`{"v":1,"x":true}`)); err != nil {
			return err
		}
		return tx.PutRaw("delegx", "d9", []byte(`{"v":1}`))
	})
	if err != nil {
		t.Fatal(err)
	}

	var old delegationV1
	if err := s.Get("deleg", "d1", &old); err != nil {
		t.Fatal(err)
	}
	if old.V != 2 || old.Parent != "p1" || old.Note != "n" {
		t.Fatalf("older read %+v", old)
	}
	if got := old.Fields(); !reflect.DeepEqual(got, []string{"deadline", "limits"}) {
		t.Fatalf("unknown fields %v, want [deadline limits]", got)
	}

	// The older binary edits what it knows, including clearing a known omitempty field, and
	// rewrites the record.
	old.Parent = "p2"
	old.Note = ""
	if err := s.Put("deleg", "d1", &old); err != nil {
		t.Fatal(err)
	}
	obj := rawObject(t, s, "deleg", "d1")
	want := map[string]any{"v": 2.0, "parent": "p2", "deadline": "2030-01-01T00:00:00Z",
		"limits": map[string]any{"turns": 3.0}}
	if !reflect.DeepEqual(obj, want) {
		t.Fatalf("rewritten record %v, want %v", obj, want)
	}
	var again delegationV2
	if err := s.Get("deleg", "d1", &again); err != nil {
		t.Fatal(err)
	}
	if again.Deadline != newer.Deadline || again.Limits["turns"] != 3 || again.Parent != "p2" {
		t.Fatalf("newer read after older rewrite %+v", again)
	}

	var ids []string
	if err := s.Scan("deleg", func(id string, _ []byte) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []string{"d1"}) {
		t.Fatalf("scan of deleg saw %v", ids)
	}
	if obj := rawObject(t, s, "future", "f1"); obj["x"] != true {
		t.Fatalf("unknown prefix record changed: %v", obj)
	}
}

func TestDeclaredFieldsAreNotUnknown(t *testing.T) {
	t.Parallel()
	type inner struct {
		Created string `json:"created"`
		Plain   int
	}
	type withEmbedded struct {
		Record
		inner
		Skipped string `json:"-"`
		Name    string `json:"name,omitempty"`
		private string
	}
	var v withEmbedded
	raw := `{"v":1,"created":"c","Plain":2,"NAME":"n","Skipped":"s","private":"p","other":1}`
	if err := decode([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	if v.Created != "c" || v.Plain != 2 || v.Name != "n" {
		t.Fatalf("decoded %+v", v)
	}
	// "-" and unexported fields are not decoded, so they must be kept as unknown.
	if got := v.Fields(); !reflect.DeepEqual(got, []string{"Skipped", "other", "private"}) {
		t.Fatalf("unknown %v", got)
	}
	_ = v.private
}

func TestDecodeZeroesTheTarget(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	if err := s.Put("deleg", "a", delegationV2{Record: Record{V: 1}, Parent: "a"}); err != nil {
		t.Fatal(err)
	}
	v := delegationV2{Note: "stale", Deadline: "stale"}
	v.fields = map[string]json.RawMessage{"stale": json.RawMessage(`1`)}
	if err := s.Get("deleg", "a", &v); err != nil {
		t.Fatal(err)
	}
	if v.Note != "" || v.Deadline != "" || len(v.fields) != 0 || v.Parent != "a" {
		t.Fatalf("stale values survived: %+v", v)
	}
}

func TestPutRequiresVersionedObject(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	for name, v := range map[string]any{
		"no version":   delegationV1{Parent: "p"},
		"not object":   []int{1},
		"string v":     map[string]any{"v": "1"},
		"missing v":    map[string]any{"x": 1},
		"fractional v": json.RawMessage(`{"v":1.5}`),
	} {
		if err := s.Put("deleg", "x", v); err == nil {
			t.Errorf("%s: Put accepted %v", name, v)
		}
	}
	if err := s.Put("deleg", "x", map[string]any{"v": 1}); err != nil {
		t.Errorf("plain versioned map: %v", err)
	}
	if err := s.Get("deleg", "x", new(map[string]any)); err != nil {
		t.Error(err)
	}
}

func TestKeysAreValidated(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	for _, k := range [][2]string{{"", "a"}, {"/deleg", "a"}, {"deleg/", "a"}, {"deleg", ""}} {
		err := s.Put(k[0], k[1], delegationV1{Record: Record{V: 1}})
		asModelError(t, err, model.CodeInvalidArgument)
	}
	// Inner slashes are fine: a prefix can name a sub-range, such as an index.
	if err := s.Update(func(tx *Tx) error { return tx.PutRaw("idx/parent/p1", "c1", nil) }); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := s.Scan("idx/parent/p1", func(id string, raw []byte) error {
		if len(raw) != 0 {
			t.Errorf("index value %q, want empty", raw)
		}
		ids = append(ids, id)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []string{"c1"}) {
		t.Fatalf("index scan %v", ids)
	}
}

func TestGetMissingIsNotFound(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	var v delegationV1
	if err := s.Get("deleg", "nope", &v); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err %v, want ErrNotFound", err)
	}
	if err := s.Put("deleg", "d", delegationV1{Record: Record{V: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSync("deleg", "d"); err != nil {
		t.Fatal(err)
	}
	if err := s.Get("deleg", "d", &v); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete("deleg", "d"); err != nil {
		t.Fatalf("deleting a missing record: %v", err)
	}
}
