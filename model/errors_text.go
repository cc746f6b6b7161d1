package model

import (
	"encoding/json"
	"sort"
	"strings"
)

// Text renders the error for a person: the code and message on the first line, the hint on
// its own line, each detail on one more. Lines after the first of a message or hint are
// indented, so they read as part of it.
func (e *Error) Text() string {
	var b strings.Builder
	b.WriteString("error: ")
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	b.WriteString(indentLines(e.Message))
	b.WriteByte('\n')
	if e.Hint != "" {
		b.WriteString("hint: ")
		b.WriteString(indentLines(e.Hint))
		b.WriteByte('\n')
	}
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("  ")
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(detailText(e.Details[k]))
		b.WriteByte('\n')
	}
	return b.String()
}

func indentLines(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// detailText is a detail as a person reads it: strings as they are, lists joined, the rest
// as JSON.
func detailText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []string:
		return strings.Join(x, ", ")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}
