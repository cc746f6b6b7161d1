// Package termsafe makes untrusted text safe to print on a terminal. Text from threads,
// sessions, clients and files may carry escape sequences (a window title, a clipboard write,
// a cleared screen) or bidi controls that reorder what a person reads; both are shown as
// visible <U+XXXX> marks instead of reaching the terminal. Newlines, tabs and ordinary
// Unicode stay as they are.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// unsafeRune reports whether r must not reach a terminal as itself: C0 controls other than
// newline and tab (ESC starts every escape sequence), DEL, C1 controls (U+009B is a CSI on
// its own) and the bidi controls that reorder the text around them.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	}
	return isBidi(r)
}

func isBidi(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	}
	return false
}

// Safe reports whether s can go to a terminal as it is: valid UTF-8 with no control but
// newline and tab, and no bidi control.
func Safe(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unsafeRune)
}

// needs reports whether s has anything String would change.
func needs(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return true
		}
		i += n
	}
	return false
}

// String returns s with every unsafe rune written as <U+XXXX> and invalid UTF-8 as U+FFFD.
func String(s string) string {
	if !needs(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case unsafeRune(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Line is String on one line: newlines and tabs become spaces as well (table cells, one-line
// summaries).
func Line(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, String(s))
}

// Writer passes everything written through String. A rune split across two writes is held
// until the rest arrives (Flush writes what is left).
type Writer struct {
	w    io.Writer
	tail []byte
}

// NewWriter returns a Writer on w; a Writer is returned as it is.
func NewWriter(w io.Writer) *Writer {
	if sw, ok := w.(*Writer); ok {
		return sw
	}
	return &Writer{w: w}
}

// Unwrap returns the writer below a Writer, for a renderer that cleans its own text and adds
// styling of its own (tables); any other writer is returned as it is.
func Unwrap(w io.Writer) io.Writer {
	if sw, ok := w.(*Writer); ok {
		sw.Flush()
		return sw.w
	}
	return w
}

// Write cleans p and writes it; it reports len(p) when the cleaned text was written.
func (sw *Writer) Write(p []byte) (int, error) {
	buf := append(sw.tail, p...)
	sw.tail = nil
	// Hold back an incomplete rune at the end (at most 3 bytes).
	cut := len(buf)
	for k := 1; k <= 3 && k <= len(buf); k++ {
		if utf8.RuneStart(buf[len(buf)-k]) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				cut = len(buf) - k
			}
			break
		}
	}
	sw.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(sw.w, String(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held incomplete rune (as U+FFFD).
func (sw *Writer) Flush() {
	if len(sw.tail) > 0 {
		_, _ = io.WriteString(sw.w, String(string(sw.tail)))
		sw.tail = nil
	}
}
