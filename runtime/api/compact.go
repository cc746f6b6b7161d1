package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// The compact form of an agent-facing document (--format compact), as the manual's COMPACT
// section states it, applied to every object of the document:
//
//   - a thread is its link: an object that is a thread (it has a link) and a threadId key
//     become the key thread with the codex://threads/<id> link; xThreadId becomes xThread,
//     and a bare id under thread, xThread, notify, author or created becomes its link
//     (client:NAME stays as it is). The thread's own id, link and deepLink go with it, and so does the
//     whole Thread object under thread: its status and harness are at the top already.
//   - no duplicates: harness (harnessId says it) and record versions (v) go;
//   - no timestamps: keys ending in At, at (a message's time), deadline and nextAttempt go;
//   - no empty values: null, "", [] and {} go (false and 0 stay: they say something).

// CompactDocument is the compact form of the document of v.
func CompactDocument(v any) (any, error) {
	b, err := model.MarshalPlain(AgentDocument(v))
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	return compactValue(doc), nil
}

func compactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return compactObject(x)
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, compactValue(e))
		}
		return out
	}
	return v
}

func compactObject(x map[string]any) map[string]any {
	out := make(map[string]any, len(x))
	for k, val := range x {
		if compactDropped(k) || (k == "id" && x["link"] != nil) {
			continue
		}
		key, c := compactKey(k), compactValue(val)
		if th, ok := c.(map[string]any); ok && key == "thread" {
			c = th["thread"] // a thread object is its link
		}
		if s, ok := c.(string); ok && threadKey(key) {
			c = threadLink(s)
		}
		if compactEmpty(c) {
			continue
		}
		out[key] = c
	}
	if link, ok := x["link"].(string); ok && out["thread"] == nil {
		out["thread"] = link
	}
	return out
}

// compactDropped: keys the compact form leaves out whatever their value.
func compactDropped(k string) bool {
	switch k {
	case "link", "deepLink", "harness", "v", "at", "deadline", "nextAttempt":
		return true
	}
	return strings.HasSuffix(k, "At")
}

// compactKey renames a thread id key to the thread it names: threadId → thread,
// parentThreadId → parentThread.
func compactKey(k string) string {
	if k == "threadId" {
		return "thread"
	}
	if base, ok := strings.CutSuffix(k, "ThreadId"); ok {
		return base + "Thread"
	}
	return k
}

func threadKey(k string) bool {
	return k == "thread" || k == "notify" || k == "author" || k == "created" || strings.HasSuffix(k, "Thread")
}

// threadLink is the link of a thread id; links and client:NAME recipients stay as they are.
func threadLink(s string) string {
	id, err := model.ParseThreadID(s)
	if err != nil || strings.HasPrefix(s, model.ClientRecipientPrefix) {
		return s
	}
	return id.Link()
}

func compactEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// CheckCompact reports the first way doc breaks the compact rules: a thread that is not a
// link, a key the compact form drops, or an empty value.
func CheckCompact(doc any) error {
	switch x := doc.(type) {
	case map[string]any:
		for k, v := range x {
			if k == "threadId" || k == "id" && x["link"] != nil || compactDropped(k) || strings.HasSuffix(k, "ThreadId") {
				return fmt.Errorf("key %s is not compact", k)
			}
			if compactEmpty(v) {
				return fmt.Errorf("key %s has an empty value", k)
			}
			if s, ok := v.(string); ok && threadKey(k) && !strings.HasPrefix(s, "codex://threads/") && !strings.HasPrefix(s, model.ClientRecipientPrefix) {
				return fmt.Errorf("%s is %q, not a thread link", k, s)
			}
			if _, isObject := v.(map[string]any); isObject && k == "thread" {
				return fmt.Errorf("thread is an object, not its link")
			}
			if err := CheckCompact(v); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	case []any:
		for i, e := range x {
			if err := CheckCompact(e); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
	}
	return nil
}
