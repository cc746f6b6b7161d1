package model

import "testing"

func TestErrorTextPutsCodeMessageHintAndDetailsOnTheirOwnLines(t *testing.T) {
	e := Errorf(CodeThreadNotFound, "run `codexhost sessions`", "no thread %s", "01ab").WithDetail("known", []string{"a", "b"}).WithDetail("limit", 3)
	want := "error: THREAD_NOT_FOUND: no thread 01ab\nhint: run `codexhost sessions`\n  known: a, b\n  limit: 3\n"
	if got := e.Text(); got != want {
		t.Fatalf("Text() = %q, want %q", got, want)
	}
}

func TestErrorTextIndentsLaterLinesAndOmitsAnEmptyHint(t *testing.T) {
	e := Errorf(CodeInvalidArgument, "", "two problems:\nfirst\nsecond\n")
	want := "error: INVALID_ARGUMENT: two problems:\n  first\n  second\n"
	if got := e.Text(); got != want {
		t.Fatalf("Text() = %q, want %q", got, want)
	}
}
