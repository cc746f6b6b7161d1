package model

import "strings"

// ThreadID identifies a thread: a UUID in lowercase canonical 8-4-4-4-12 form. Native Codex
// threads use UUIDv7; external threads may use any UUID, so version and variant are not checked.
// The zero value is "no thread".
type ThreadID string

// threadLinkPrefix starts a Codex deep link to a thread.
const threadLinkPrefix = "codex://threads/"

const threadIDHint = "give a thread id as a bare UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx) or as a link codex://threads/<uuid>"

// ParseThreadID accepts a bare UUID or a deep link codex://threads/<uuid> and returns the
// canonical id, so that both forms name the same thread everywhere. Surrounding whitespace is
// ignored (pasted arguments often carry a newline) and so is one trailing slash after a link
// (browsers and chat clients add one). Hex digits may be in either case.
func ParseThreadID(s string) (ThreadID, error) {
	t := strings.TrimSpace(s)
	id := t
	// Scheme and host of a URI are case-insensitive, so the prefix is too.
	if len(t) >= len(threadLinkPrefix) && strings.EqualFold(t[:len(threadLinkPrefix)], threadLinkPrefix) {
		id = strings.TrimSuffix(t[len(threadLinkPrefix):], "/")
	}
	canon, ok := canonicalUUID(id)
	if !ok {
		if t == "" {
			return "", Errorf(CodeInvalidArgument, threadIDHint, "thread id is empty")
		}
		return "", Errorf(CodeInvalidArgument, threadIDHint, "invalid thread id %s", echo(s))
	}
	return ThreadID(canon), nil
}

// canonicalUUID reports whether s is a UUID in 8-4-4-4-12 form and returns it in lowercase.
// Other spellings (braces, urn:uuid:, no hyphens) are refused: they are not what Codex prints,
// and accepting them would only widen what agents must guess about.
func canonicalUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	var b [36]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return "", false
			}
		default:
			switch {
			case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
			case 'A' <= c && c <= 'F':
				c += 'a' - 'A'
			default:
				return "", false
			}
		}
		b[i] = c
	}
	return string(b[:]), true
}

// String returns the bare id.
func (id ThreadID) String() string { return string(id) }

// Link returns the Codex deep link of the thread, codex://threads/<id>.
func (id ThreadID) Link() string { return threadLinkPrefix + string(id) }
