package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestErrorJSONEnvelope(t *testing.T) {
	e := Errorf(CodeHarnessNotFound, "use one of: codex, claude", "harness %q is not registered", "gpt").
		WithDetail("valid", []string{"codex", "claude"})
	var got map[string]map[string]any
	if err := json.Unmarshal(e.JSON(), &got); err != nil {
		t.Fatalf("JSON() = %s: %v", e.JSON(), err)
	}
	if len(got) != 1 || got["error"] == nil {
		t.Fatalf("envelope %s is not {\"error\":{…}}", e.JSON())
	}
	want := map[string]any{
		"code":    "HARNESS_NOT_FOUND",
		"message": `harness "gpt" is not registered`,
		"hint":    "use one of: codex, claude",
		"details": map[string]any{"valid": []any{"codex", "claude"}},
	}
	if !reflect.DeepEqual(got["error"], want) {
		t.Fatalf("error object = %#v\nwant %#v", got["error"], want)
	}
}

func TestErrorJSONOmitsEmptyHintAndDetails(t *testing.T) {
	got := string((&Error{Code: CodeThreadBusy, Message: "busy"}).JSON())
	if want := `{"error":{"code":"THREAD_BUSY","message":"busy"}}`; got != want {
		t.Fatalf("JSON() = %s, want %s", got, want)
	}
}

func TestErrorJSONKeepsCodeWhenDetailsCannotBeEncoded(t *testing.T) {
	e := Errorf(CodeDelegationFailed, "retry", "failed").WithDetail("bad", func() {})
	var got struct {
		Error struct {
			Code    Code           `json:"code"`
			Message string         `json:"message"`
			Hint    string         `json:"hint"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(e.JSON(), &got); err != nil {
		t.Fatalf("JSON() = %q is not JSON: %v", e.JSON(), err)
	}
	if got.Error.Code != CodeDelegationFailed || got.Error.Message != "failed" || got.Error.Hint != "retry" || got.Error.Details != nil {
		t.Fatalf("fallback envelope = %+v", got.Error)
	}
}

func TestErrorString(t *testing.T) {
	if got := Errorf(CodeThreadNotFound, "", "no thread %s", "x").Error(); got != "THREAD_NOT_FOUND: no thread x" {
		t.Errorf("without hint: %q", got)
	}
	if got := Errorf(CodeThreadNotFound, "check the id", "no thread").Error(); got != "THREAD_NOT_FOUND: no thread (check the id)" {
		t.Errorf("with hint: %q", got)
	}
}

func TestWithDetailDoesNotMutate(t *testing.T) {
	base := Errorf(CodeInvalidArgument, "h", "m").WithDetail("a", 1)
	derived := base.WithDetail("b", 2)
	overridden := base.WithDetail("a", 3)

	if !reflect.DeepEqual(base.Details, map[string]any{"a": 1}) {
		t.Errorf("original details changed to %v", base.Details)
	}
	if !reflect.DeepEqual(derived.Details, map[string]any{"a": 1, "b": 2}) {
		t.Errorf("derived details = %v", derived.Details)
	}
	if !reflect.DeepEqual(overridden.Details, map[string]any{"a": 3}) {
		t.Errorf("overridden details = %v", overridden.Details)
	}
	if derived == base || derived.Code != base.Code || derived.Message != base.Message || derived.Hint != base.Hint {
		t.Errorf("derived %+v is not a copy of %+v", derived, base)
	}
	// A nil-details error gains a map without sharing one with the original.
	plain := &Error{Code: CodeInternal, Message: "x"}
	_ = plain.WithDetail("k", "v")
	if plain.Details != nil {
		t.Errorf("original without details gained %v", plain.Details)
	}
}

func TestExitCode(t *testing.T) {
	for _, c := range []Code{CodeInvalidArgument, CodeInternal, CodeThreadBusy} {
		if got := (&Error{Code: c}).ExitCode(); got != 1 {
			t.Errorf("%s exit code = %d, want 1", c, got)
		}
	}
}

func TestAsError(t *testing.T) {
	if AsError(nil) != nil {
		t.Error("AsError(nil) is not nil")
	}

	own := Errorf(CodeThreadBusy, "wait for the turn to end", "thread is running")
	if got := AsError(own); got != own {
		t.Errorf("AsError(*Error) = %p, want the same %p", got, own)
	}
	if got := AsError(fmt.Errorf("sending: %w", own)); got != own {
		t.Errorf("AsError did not unwrap a wrapped *Error: %v", got)
	}

	plain := AsError(io.ErrUnexpectedEOF)
	if plain.Code != CodeInternal || plain.Message != io.ErrUnexpectedEOF.Error() || plain.Hint == "" {
		t.Errorf("AsError(plain) = %+v, want INTERNAL_ERROR with the message and a hint", plain)
	}
	if !strings.Contains(string(plain.JSON()), `"code":"INTERNAL_ERROR"`) {
		t.Errorf("wrapped plain error renders as %s", plain.JSON())
	}
}

func TestIsCode(t *testing.T) {
	busy := Errorf(CodeThreadBusy, "", "busy")
	tests := []struct {
		name string
		err  error
		code Code
		want bool
	}{
		{"same code", busy, CodeThreadBusy, true},
		{"other code", busy, CodeThreadNotFound, false},
		{"wrapped", fmt.Errorf("ctx: %w", busy), CodeThreadBusy, true},
		{"joined", errors.Join(io.EOF, busy), CodeThreadBusy, true},
		{"plain error is not INTERNAL_ERROR by IsCode", io.EOF, CodeInternal, false},
		{"nil", nil, CodeThreadBusy, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsCode(tt.err, tt.code); got != tt.want {
				t.Errorf("IsCode(%v, %s) = %v, want %v", tt.err, tt.code, got, tt.want)
			}
		})
	}
}
