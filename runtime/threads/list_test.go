package threads

import (
	"encoding/base64"
	"slices"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// A list cursor is what a caller hands back unchanged; anything else is refused with
// INVALID_ARGUMENT, and a cursor that decodes names a row and survives a round trip.
func FuzzDecodeListCursor(f *testing.F) {
	for _, seed := range []string{
		"",
		"!!!",
		encodeListCursor(listCursor{Key: 1700000000000000000, ID: "019a0000-0000-7000-8000-000000000001"}),
		encodeListCursor(listCursor{Key: -1, ID: "x"}),
		base64.RawURLEncoding.EncodeToString([]byte(`{}`)),
		base64.RawURLEncoding.EncodeToString([]byte(`{"k":1}`)),
		base64.RawURLEncoding.EncodeToString([]byte(`{"k":"one","i":"a"}`)),
		base64.RawURLEncoding.EncodeToString([]byte(`null`)),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeListCursor(s)
		if err != nil {
			if !model.IsCode(err, model.CodeInvalidArgument) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if c.ID == "" {
			t.Fatalf("%q decoded without a row id", s)
		}
		again, err := decodeListCursor(encodeListCursor(c))
		if err != nil || again != c {
			t.Fatalf("%q: round trip %+v → %+v, %v", s, c, again, err)
		}
	})
}

// Rows sort by the chosen time, ties broken by id in the same direction, so pages never
// repeat or skip a row.
func TestListOrderBreaksTiesByID(t *testing.T) {
	t.Parallel()
	at := time.Unix(100, 0)
	row := func(id string, created time.Time) listRow {
		return listRow{info: model.ThreadInfo{ID: id, CreatedAt: created, UpdatedAt: at}, recency: created}
	}
	rows := []listRow{row("b", at), row("a", at), row("c", at.Add(time.Second))}
	ids := func(rs []listRow) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.info.ID)
		}
		return out
	}
	for sortBy, want := range map[string][]string{
		"created-desc": {"c", "b", "a"},
		"created-asc":  {"a", "b", "c"},
		"recency-desc": {"c", "b", "a"},
		"updated-asc":  {"a", "b", "c"},
	} {
		got := slices.Clone(rows)
		slices.SortFunc(got, listOrder(sortBy).compare)
		if !slices.Equal(ids(got), want) {
			t.Errorf("%s: %v, want %v", sortBy, ids(got), want)
		}
	}
}
