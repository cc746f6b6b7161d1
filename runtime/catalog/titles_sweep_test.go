package catalog

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A full read of a home of several pages reads from both ends and stops where they meet:
// every title is in the index, both directions were asked, and no page is read twice over
// what one reader paging to the end would read (plus the page where the two overlap).
func TestSweepReadsFromBothEndsUntilTheyMeet(t *testing.T) {
	const threads, pages = 1050, 11 // NativePageSize rows a page
	conn := &fakeConn{anchored: true}
	for i := range threads {
		conn.threads = append(conn.threads, fakeThread(i, fmt.Sprintf("needle %d", i)))
	}
	cat, err := New([]HostSpec{{ID: LocalHostID, Source: &fakeSource{conn: conn}}}, Options{IndexDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	cat.Warm()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := cat.byID[LocalHostID]
	if !cat.waitExact(ctx, h) {
		t.Fatal("the title index did not become exact")
	}
	h.titles.mu.Lock()
	indexed := len(h.titles.entries)
	h.titles.mu.Unlock()
	if indexed != threads {
		t.Fatalf("indexed %d of %d threads", indexed, threads)
	}
	asc, desc := 0, 0
	for _, p := range conn.callsOf("thread/list") {
		if p["sortDirection"] == "asc" {
			asc++
		} else {
			desc++
		}
	}
	// Reads begun ahead may be cut short, but each end asks for at most one page past the
	// meeting point.
	if asc == 0 || desc == 0 || asc+desc > pages+3 {
		t.Fatalf("pages read: %d newest first, %d oldest first (one reader: %d)", desc, asc, pages)
	}
}

// The sweep ends where one end reads an id the other has read, or where one end reads to its end.
func TestSweepEndsWhereTheEndsOverlapOrOneReachesItsEnd(t *testing.T) {
	m := &sweepMeet{seen: [2]map[string]bool{{}, {}}}
	rows := func(ids ...string) *segment {
		s := &segment{}
		for _, id := range ids {
			var r row
			r.s.ID = id
			s.rows = append(s.rows, r)
		}
		return s
	}
	if m.read(sweepHeadEnd, rows("a", "b")) {
		t.Fatal("met after one page of the head alone")
	}
	if m.read(sweepTailEnd, rows("e", "d")) {
		t.Fatal("met with no id in common")
	}
	if !m.read(sweepTailEnd, rows("c", "b")) {
		t.Fatal("the tail read an id the head had read, and the sweep did not end")
	}
	end := &sweepMeet{seen: [2]map[string]bool{{}, {}}}
	last := rows("a")
	last.end = true
	if !end.read(sweepHeadEnd, last) {
		t.Fatal("the head read to the end, and the sweep did not end")
	}
}
