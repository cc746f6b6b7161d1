package supervise

import (
	"strconv"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
)

// The history pages like any messages view: newest page first, oldest first within a page.
func TestMirrorPagesNewestFirst(t *testing.T) {
	t.Parallel()
	var msgs []model.Message
	for i := range 5 {
		msgs = append(msgs, model.Message{Role: model.RoleUser, Text: strconv.Itoa(i)})
	}
	page, next, err := mirrorPage(msgs, harness.ReadRequest{Limit: 2})
	if err != nil || len(page) != 2 || page[0].Text != "3" || next != mirrorCursor+"3" {
		t.Fatalf("first page %v %q %v", page, next, err)
	}
	page, next, _ = mirrorPage(msgs, harness.ReadRequest{Limit: 2, Cursor: next})
	if len(page) != 2 || page[0].Text != "1" || next != mirrorCursor+"1" {
		t.Fatalf("second page %v %q", page, next)
	}
	page, next, _ = mirrorPage(msgs, harness.ReadRequest{Limit: 2, Cursor: next})
	if len(page) != 1 || page[0].Text != "0" || next != "" {
		t.Fatalf("last page %v %q", page, next)
	}
	for _, bad := range []string{"mirror:9", "mirror:-1", "mirror:x", "eyJrIjoxfQ"} {
		if _, _, err := mirrorPage(msgs, harness.ReadRequest{Cursor: bad}); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Fatalf("cursor %q: %v", bad, err)
		}
	}
}
