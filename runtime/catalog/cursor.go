package catalog

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// Cursors are opaque to callers: a JSON body and a MAC over it, both base64url. The MAC
// makes a forged or edited cursor an error here instead of a request the App Server sees.
const (
	cursorPrefix  = "cc1."
	cursorVersion = 1
	// MaxCursorBytes bounds a cursor; real ones stay far below it.
	MaxCursorBytes = 2048
	macBytes       = 16

	kindSessions   = "s"
	kindTranscript = "t"
)

type cursorBody struct {
	V    int    `json:"v"`
	Kind string `json:"k"`
	Host string `json:"h"`
	// Native is the App Server cursor where the position starts ("" = the newest end).
	Native string `json:"c,omitempty"`
	// Sessions: rows of that native page already returned, and the search it belongs to.
	Offset int    `json:"o,omitempty"`
	Search string `json:"q,omitempty"`
	// After is the last row a search answered from the title index gave ("createdAt|id").
	After string `json:"x,omitempty"`
	// Transcript: the thread, the direction (older or newer) and a turn to drop when the
	// App Server returns it first (its cursors of a page's far end include that turn).
	Thread string `json:"t,omitempty"`
	Dir    string `json:"d,omitempty"`
	Anchor string `json:"a,omitempty"`
}

func (c *Catalog) encodeCursor(b cursorBody) string {
	b.V = cursorVersion
	payload, _ := json.Marshal(b)
	mac := hmac.New(sha256.New, c.opts.Key)
	mac.Write(payload)
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(payload) + "." +
		base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:macBytes])
}

// decodeCursor checks a cursor's integrity, kind and host.
func (c *Catalog) decodeCursor(s, kind, hostID, hint string) (cursorBody, error) {
	bad := func(why string) (cursorBody, error) {
		return cursorBody{}, model.Errorf(model.CodeInvalidArgument, hint, "invalid cursor: %s", why)
	}
	if len(s) > MaxCursorBytes {
		return bad("it is longer than any cursor this runtime gives")
	}
	rest, ok := strings.CutPrefix(s, cursorPrefix)
	if !ok {
		return bad("it was not given by this runtime")
	}
	p, m, ok := strings.Cut(rest, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	sum, err2 := base64.RawURLEncoding.DecodeString(m)
	if !ok || err1 != nil || err2 != nil {
		return bad("it is malformed")
	}
	mac := hmac.New(sha256.New, c.opts.Key)
	mac.Write(payload)
	if !hmac.Equal(sum, mac.Sum(nil)[:macBytes]) {
		return bad("it was not given by this runtime or was changed")
	}
	var b cursorBody
	if err := json.Unmarshal(payload, &b); err != nil || b.V != cursorVersion || b.Offset < 0 || b.Offset > maxPageRows {
		return bad("it is malformed")
	}
	if b.Kind != kind {
		return bad("it belongs to another command")
	}
	if b.Host != hostID {
		return cursorBody{}, model.Errorf(model.CodeInvalidArgument, hint, "invalid cursor: it belongs to host %s, not %s", b.Host, hostID)
	}
	return b, nil
}

// searchKey binds a sessions cursor to its search text without carrying the text.
func searchKey(search string) string {
	if search == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(fold(search)))
	return hex.EncodeToString(sum[:8])
}
