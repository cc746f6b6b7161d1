package store

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/codexhost/codexhost/model"
)

// seedPage stores ids under "page" and, around them, keys that must never be visited: the
// exact neighbours of the "page/" range in key order, and a longer prefix.
func seedPage(t *testing.T, s *Store, ids ...string) {
	t.Helper()
	err := s.db.Update(func(txn *badger.Txn) error {
		for _, k := range []string{"page", "page.", "page0", "page0/x", "pagex/a", "pag/z", "pagd/z"} {
			if err := txn.Set([]byte(k), []byte(`{"v":1}`)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := s.Put("page", id, note{Record{V: 1}, id}); err != nil {
			t.Fatal(err)
		}
	}
}

// pages reads every page and returns the ids of each.
func pages(t *testing.T, s *Store, limit int, reverse bool, keep func(string) bool) [][]string {
	t.Helper()
	var out [][]string
	cursor := ""
	for range 100 {
		var ids []string
		next, err := s.Page("page", cursor, limit, reverse, func(id string, raw []byte) (bool, error) {
			var n note
			if err := decode(raw, &n); err != nil || n.Text != id {
				t.Fatalf("row %s: %s (%v)", id, raw, err)
			}
			if keep != nil && !keep(id) {
				return false, nil
			}
			ids = append(ids, id)
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ids)
		if next == "" {
			return out
		}
		cursor = next
	}
	t.Fatal("paging did not end")
	return nil
}

func ids(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("r%02d", i))
	}
	return out
}

func TestPage(t *testing.T) {
	t.Parallel()
	odd := func(id string) bool { return (id[len(id)-1]-'0')%2 == 1 }
	all := ids(10)
	rev := slices.Clone(all)
	slices.Reverse(rev)
	cases := []struct {
		name    string
		records []string
		limit   int
		reverse bool
		keep    func(string) bool
		want    [][]string
	}{
		{"empty", nil, 3, false, nil, [][]string{nil}},
		{"empty reverse", nil, 3, true, nil, [][]string{nil}},
		{"one", ids(1), 1, false, nil, [][]string{{"r00"}}},
		{"one reverse", ids(1), 5, true, nil, [][]string{{"r00"}}},
		{"many", all, 3, false, nil, [][]string{all[0:3], all[3:6], all[6:9], all[9:]}},
		{"many reverse", all, 3, true, nil, [][]string{rev[0:3], rev[3:6], rev[6:9], rev[9:]}},
		{"exact multiple", ids(9), 3, false, nil, [][]string{all[0:3], all[3:6], all[6:9]}},
		{"limit above count", all, 50, false, nil, [][]string{all}},
		{"filter", all, 2, false, odd, [][]string{{"r01", "r03"}, {"r05", "r07"}, {"r09"}}},
		{"filter reverse", all, 2, true, odd, [][]string{{"r09", "r07"}, {"r05", "r03"}, {"r01"}}},
		// The last kept row is followed by rejected ones: the final page comes back empty.
		{"filter rejects tail", all, 1, false, func(id string) bool { return id <= "r01" },
			[][]string{{"r00"}, {"r01"}, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openTemp(t)
			seedPage(t, s, c.records...)
			got := pages(t, s, c.limit, c.reverse, c.keep)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("pages %v, want %v", got, c.want)
			}
		})
	}
}

func TestPageCursorAcrossDirectionsAndDeletes(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	seedPage(t, s, ids(6)...)
	collect := func(cursor string, limit int, reverse bool) ([]string, string) {
		var got []string
		next, err := s.Page("page", cursor, limit, reverse, func(id string, _ []byte) (bool, error) {
			got = append(got, id)
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, next
	}
	first, next := collect("", 3, false)
	if !reflect.DeepEqual(first, []string{"r00", "r01", "r02"}) || next == "" {
		t.Fatalf("first page %v next %q", first, next)
	}
	if back, end := collect(next, 10, true); !reflect.DeepEqual(back, []string{"r01", "r00"}) || end != "" {
		t.Fatalf("backwards from the cursor %v next %q", back, end)
	}
	// The record under the cursor goes away; the cursor still marks the position.
	if err := s.Delete("page", "r02"); err != nil {
		t.Fatal(err)
	}
	if rest, end := collect(next, 10, false); !reflect.DeepEqual(rest, []string{"r03", "r04", "r05"}) || end != "" {
		t.Fatalf("after the deleted cursor %v next %q", rest, end)
	}
}

func TestPageErrors(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	seedPage(t, s, ids(3)...)
	nop := func(string, []byte) (bool, error) { return true, nil }
	other := base64.RawURLEncoding.EncodeToString([]byte("pagex/a"))
	bare := base64.RawURLEncoding.EncodeToString([]byte("page/"))
	for _, cursor := range []string{"!!not base64!!", other, bare, "cGFnZQ=="} {
		_, err := s.Page("page", cursor, 2, false, nop)
		me := asModelError(t, err, model.CodeInvalidArgument)
		if !strings.Contains(me.Hint, "cursor") {
			t.Errorf("hint %q should say what to do with the cursor", me.Hint)
		}
	}
	_, err := s.Page("page", "", 0, false, nop)
	asModelError(t, err, model.CodeInvalidArgument)

	boom := errors.New("boom")
	calls := 0
	_, err = s.Page("page", "", 10, false, func(string, []byte) (bool, error) { calls++; return false, boom })
	if !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("callback error: %v after %d calls", err, calls)
	}
}

func TestScanStop(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	seedPage(t, s, ids(5)...)
	var got []string
	err := s.Scan("page", func(id string, _ []byte) error {
		got = append(got, id)
		if len(got) == 2 {
			return StopScan
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, []string{"r00", "r01"}) {
		t.Fatalf("scan %v err %v", got, err)
	}
	boom := errors.New("boom")
	if err := s.Scan("page", func(string, []byte) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("scan error %v", err)
	}
}
