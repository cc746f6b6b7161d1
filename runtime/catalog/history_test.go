package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// turnJSON builds a turn as thread/turns/list returns it, so the items go through the same
// decoding as the App Server's.
func turnJSON(t *testing.T, id, status string, items ...map[string]any) appserver.Turn {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": id, "status": status, "items": items})
	if err != nil {
		t.Fatal(err)
	}
	var turn appserver.Turn
	if err := json.Unmarshal(b, &turn); err != nil {
		t.Fatal(err)
	}
	return turn
}

func userItem(text string) map[string]any {
	return map[string]any{"type": "userMessage", "id": "u", "content": []map[string]any{{"type": "text", "text": text}}}
}

func agentItem(text string) map[string]any {
	return map[string]any{"type": "agentMessage", "id": "a", "text": text}
}

// turns makes n completed turns of one user and one assistant message each, newest first;
// turn i carries "q<i>" and "a<i>" followed by pad.
func turnsOf(t *testing.T, n int, pad string) []appserver.Turn {
	var out []appserver.Turn
	for i := n - 1; i >= 0; i-- {
		out = append(out, turnJSON(t, fmt.Sprintf("t%d", i), "completed", userItem(fmt.Sprintf("q%d%s", i, pad)), agentItem(fmt.Sprintf("a%d%s", i, pad))))
	}
	return out
}

// Scenario: S003-10 — at most 200 messages, the newest ones, oldest first; older ones are
// marked as left out.
func TestS003_10_HistoryKeepsTheNewest200Messages(t *testing.T) {
	t.Parallel()
	h := BuildHistory("title", turnsOf(t, 125, ""))
	if len(h.Messages) != HistoryMaxMessages || !h.OlderOmitted || h.Truncated != 0 {
		t.Fatalf("%d messages, olderOmitted %v, truncated %d", len(h.Messages), h.OlderOmitted, h.Truncated)
	}
	// 250 messages: the newest 200 are turns 25..124.
	if first, last := h.Messages[0], h.Messages[len(h.Messages)-1]; first.Text != "q25" || first.Role != model.RoleUser || last.Text != "a124" || last.Role != model.RoleAssistant || first.TurnID != "t25" {
		t.Fatalf("kept %+v .. %+v", first, last)
	}
	// Exactly 200 is not an omission.
	if h := BuildHistory("", turnsOf(t, 100, "")); len(h.Messages) != 200 || h.OlderOmitted {
		t.Fatalf("100 turns: %d messages, olderOmitted %v", len(h.Messages), h.OlderOmitted)
	}
}

// Scenario: S003-10 — each message at most 64 KiB, marked when cut (at a character
// boundary), and 512 KiB in all.
func TestS003_10_HistoryBoundsBytesAndMarksTruncation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 40<<10) // 80 KiB of two-byte characters
	h := BuildHistory("", []appserver.Turn{turnJSON(t, "t0", "completed", userItem("short"), agentItem(long))})
	if len(h.Messages) != 2 || h.Truncated != 1 || h.OlderOmitted {
		t.Fatalf("%d messages, truncated %d", len(h.Messages), h.Truncated)
	}
	cut := h.Messages[1].Text
	if len(cut) > HistoryMaxMessageBytes || len(cut) < HistoryMaxMessageBytes-4 || !strings.HasSuffix(cut, TruncatedMarker) || !utf8.ValidString(cut) {
		t.Fatalf("cut message: %d bytes, marker %v, valid %v", len(cut), strings.HasSuffix(cut, TruncatedMarker), utf8.ValidString(cut))
	}
	if h.Bytes != len("short")+len(cut) {
		t.Fatalf("bytes %d", h.Bytes)
	}

	// 60 KiB messages: eight fit in 512 KiB, the ninth would not.
	pad := strings.Repeat("x", 60<<10)
	h = BuildHistory("", turnsOf(t, 10, pad))
	if len(h.Messages) != 8 || !h.OlderOmitted || h.Bytes > HistoryMaxBytes || h.Truncated != 0 {
		t.Fatalf("%d messages, %d bytes, olderOmitted %v", len(h.Messages), h.Bytes, h.OlderOmitted)
	}
	if !strings.HasPrefix(h.Messages[0].Text, "q6") || !strings.HasPrefix(h.Messages[7].Text, "a9") {
		t.Fatalf("kept %.3s .. %.3s", h.Messages[0].Text, h.Messages[7].Text)
	}
}

// Scenario: S003-10 — images become a placeholder; reasoning, tool calls and results, image
// payloads and paths are left out; a turn still running is not carried, earlier interrupted
// and failed turns are.
func TestS003_10_HistoryKeepsOnlyVisibleMessages(t *testing.T) {
	t.Parallel()
	img := map[string]any{"type": "userMessage", "id": "u", "content": []map[string]any{
		{"type": "text", "text": "look at this"},
		{"type": "image", "url": "data:image/png;base64,SECRETPAYLOAD"},
		{"type": "localImage", "path": "/home/me/secret/shot.png"},
	}}
	turns := []appserver.Turn{ // newest first
		turnJSON(t, "t4", "inProgress", userItem("still running"), agentItem("partial")),
		turnJSON(t, "t3", "failed", userItem("q3")),
		turnJSON(t, "t2", "interrupted", userItem("q2"), agentItem("a2 cut off")),
		turnJSON(t, "t1", "completed", img,
			map[string]any{"type": "reasoning", "id": "r", "summary": []string{"SECRET REASONING"}},
			map[string]any{"type": "commandExecution", "id": "c", "command": "cat /etc/SECRETFILE", "aggregatedOutput": "SECRET OUTPUT"},
			map[string]any{"type": "mcpToolCall", "id": "m", "arguments": "SECRET ARGS", "result": "SECRET RESULT"},
			agentItem("a1")),
	}
	h := BuildHistory("", turns)
	var got []string
	for _, m := range h.Messages {
		got = append(got, m.Role+":"+m.Text)
	}
	want := []string{"user:look at this\n[Image attachment]\n[Image attachment]", "assistant:a1", "user:q2", "assistant:a2 cut off", "user:q3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("history\n got %q\nwant %q", got, want)
	}
	raw, _ := json.Marshal(h)
	for _, leak := range []string{"SECRET", "shot.png", "base64", "still running", "partial"} {
		if strings.Contains(string(raw), leak) {
			t.Fatalf("history holds %q: %s", leak, raw)
		}
	}
}
