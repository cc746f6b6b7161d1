package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// The coalescing window is a time rule, so it is tested with the times given by hand: the
// first fragment of a message goes out at once, later ones wait for the window, and what
// waits is sent whole, in order, once.
func TestStreamBufferCoalescesPerMessage(t *testing.T) {
	t.Parallel()
	b := streamBuffer{window: 50 * time.Millisecond}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := streamKey{thread: "t1", item: "msg_a"}
	other := streamKey{thread: "t1", item: "msg_b"}

	d, wait := b.add(a, "turn1", "Hel", at)
	if d == nil || d.Text != "Hel" || d.Seq != 1 || d.ItemID != "msg_a" || wait != 0 {
		t.Fatalf("first fragment: %+v, wait %v; want it at once as seq 1", d, wait)
	}
	d, wait = b.add(a, "turn1", "lo", at.Add(10*time.Millisecond))
	if d != nil || wait != 40*time.Millisecond {
		t.Fatalf("second fragment inside the window: %+v, wait %v; want it held for 40ms", d, wait)
	}
	// A flush is already due: more text joins it without another timer.
	if d, wait = b.add(a, "turn1", ", wor", at.Add(20*time.Millisecond)); d != nil || wait != 0 {
		t.Fatalf("third fragment: %+v, wait %v; want it to join the pending flush", d, wait)
	}
	// Another message of the same thread has its own window.
	if d, _ = b.add(other, "turn1", "x", at.Add(20*time.Millisecond)); d == nil || d.Seq != 1 {
		t.Fatalf("another message's first fragment: %+v", d)
	}
	d = b.flush(a, at.Add(50*time.Millisecond))
	if d == nil || d.Text != "lo, wor" || d.Seq != 2 {
		t.Fatalf("flush: %+v; want the held text as seq 2", d)
	}
	if d = b.flush(a, at.Add(60*time.Millisecond)); d != nil {
		t.Fatalf("a second flush sent %+v; nothing waited", d)
	}
	// Past the window a fragment goes out at once again.
	if d, _ = b.add(a, "turn1", "ld", at.Add(101*time.Millisecond)); d == nil || d.Text != "ld" || d.Seq != 3 {
		t.Fatalf("fragment after the window: %+v", d)
	}
	b.add(a, "turn1", "!", at.Add(110*time.Millisecond))
	if d = b.end(a, at.Add(111*time.Millisecond)); d == nil || d.Text != "!" || d.Seq != 4 {
		t.Fatalf("end of the message: %+v; want what waited", d)
	}
	if b.turnOf(a) != "" {
		t.Fatal("an ended message is still buffered")
	}
	b.add(other, "turn1", "y", at.Add(111*time.Millisecond))
	b.add(other, "turn1", "z", at.Add(115*time.Millisecond))
	fl := b.endThread("t1", at.Add(116*time.Millisecond))
	if len(fl) != 1 || fl[0].delta.Text != "z" || fl[0].turn != "turn1" || len(b.items) != 0 {
		t.Fatalf("end of the thread: %+v, left %d", fl, len(b.items))
	}
}

// A slow turn of the real App Server streams its text: it reaches the harness's subscriber
// in several pieces before the turn completes, the pieces join to the final message, and
// the last piece comes before the progress event of the message's completion.
func TestNativeStreamsAssistantTextBeforeTheTurnEnds(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	ctx := context.Background()
	id, err := n.Start(ctx, StartRequest{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	turnID, err := n.Send(ctx, id, "[[mode:slow]] [[delay:0.15]] [[duration:1]] stream please")
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	pieces, seq, item := 0, 0, ""
	for {
		ev := n.waitEvent(t, "the turn's events", func(ev Event) bool { return ev.Thread == id })
		if d := ev.Delta; d != nil {
			if ev.TurnID != turnID || ev.Status != model.ThreadActive || d.Seq != seq+1 || (item != "" && d.ItemID != item) {
				t.Fatalf("delta %+v of turn %s (status %s) after seq %d of %q", d, ev.TurnID, ev.Status, seq, item)
			}
			seq, item = d.Seq, d.ItemID
			pieces++
			streamed.WriteString(d.Text)
			continue
		}
		if ev.Progress && pieces > 0 {
			break // the assistant message completed
		}
		if ev.TurnStatus != "" && ev.TurnStatus != model.TurnInProgress {
			t.Fatalf("the turn ended (%+v) after %d pieces and no completed message", ev, pieces)
		}
	}
	if pieces < 3 {
		t.Fatalf("the reply came in %d pieces, want several", pieces)
	}
	n.waitEvent(t, "the turn's end", func(ev Event) bool { return ev.Thread == id && ev.TurnStatus == model.TurnCompleted })
	snap, err := n.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Result == nil || snap.Result.Text != streamed.String() {
		t.Fatalf("final text %+v, streamed %q", snap.Result, streamed.String())
	}
}

// Whatever the fragments and their timing, the deltas of a message join to exactly its
// text, with sequence numbers 1, 2, 3…, and never two inside one window.
func FuzzStreamBufferDeliversEveryFragmentOnce(f *testing.F) {
	f.Add([]byte("Hello, world"), []byte{0, 10, 10, 60, 1, 200})
	f.Add([]byte("日本語のテキスト"), []byte{49, 1, 50})
	f.Add([]byte(""), []byte{})
	f.Fuzz(func(t *testing.T, text []byte, gaps []byte) {
		const window = 50 * time.Millisecond
		b := streamBuffer{window: window}
		k := streamKey{thread: "t", item: "m"}
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var got strings.Builder
		seq := 0
		var last time.Time
		take := func(d *Delta, now time.Time) {
			if d == nil {
				return
			}
			if d.Seq != seq+1 {
				t.Fatalf("seq %d after %d", d.Seq, seq)
			}
			if seq > 0 && now.Sub(last) < window {
				t.Fatalf("two deltas %v apart, inside the window", now.Sub(last))
			}
			seq, last = d.Seq, now
			got.WriteString(d.Text)
		}
		due := time.Time{} // when the scheduled flush fires; zero when none
		for i := range text {
			at = at.Add(time.Duration(gapAt(gaps, i)) * time.Millisecond)
			if !due.IsZero() && !at.Before(due) {
				take(b.flush(k, due), due)
				due = time.Time{}
			}
			d, wait := b.add(k, "turn", string(text[i:i+1]), at)
			take(d, at)
			if wait > 0 {
				due = at.Add(wait)
			}
		}
		// The message's end sends what waits at once, whatever the window: it must not lag.
		seqEnd := seq
		if d := b.end(k, at); d != nil {
			if d.Seq != seqEnd+1 {
				t.Fatalf("end seq %d after %d", d.Seq, seqEnd)
			}
			got.WriteString(d.Text)
		}
		if got.String() != string(text) {
			t.Fatalf("deltas joined to %q, want %q", got.String(), text)
		}
	})
}

func gapAt(gaps []byte, i int) byte {
	if len(gaps) == 0 {
		return 0
	}
	return gaps[i%len(gaps)]
}
