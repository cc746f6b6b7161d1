package ui

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The same 10,000-row app as bigApp, with the transcript on a thread whose turn streams.
// Each benchmark has a twin without streaming, so one run compares them.

// liveBigApp is bigApp showing a running native turn in the transcript.
func liveBigApp(b *testing.B) *testApp {
	a := bigApp(b)
	started := epoch.Add(-5 * time.Second)
	live := &liveThread{last: model.TurnSummary{ID: "turn-live", Status: model.TurnInProgress, StartedAt: &started}}
	live.messages = []model.Message{{ID: "user_1", Role: model.RoleUser, Text: "write a long answer", TurnID: "turn-live", At: started}}
	live.serve(a.rt)
	a.run(a.transcript.Show(threadRef{ID: idLive, Status: model.ThreadActive}))
	return a
}

// fragmentsPerMessage bounds a streamed message, as a completed one would: about 8 KB.
const fragmentsPerMessage = 200

// fragment is one coalesced delta of a fast model (50 ms of text), in a message that starts
// afresh every fragmentsPerMessage fragments.
func fragment(a *testApp, i int) tea.Msg {
	n := i % fragmentsPerMessage
	if n == 0 {
		a.transcript.live = liveStream{} // the message completed: the read replaced it
	}
	return EventMsg(api.DeltaEvent(idLive, model.ThreadActive, "turn-live", api.ThreadDelta{
		ItemID: fmt.Sprintf("msg_%d", i/fragmentsPerMessage), Text: "some streamed words of the answer, then ", Seq: n + 1}))
}

func BenchmarkViewWith10kRowsRunningTurn(b *testing.B) {
	a := liveBigApp(b)
	b.ResetTimer()
	for range b.N {
		_ = a.View()
	}
}

// BenchmarkViewWith10kRowsStreaming is a fragment through Update and the frame after it.
func BenchmarkViewWith10kRowsStreaming(b *testing.B) {
	a := liveBigApp(b)
	b.ResetTimer()
	for i := range b.N {
		_, _ = a.Update(fragment(a, i))
		_ = a.View()
	}
}

// BenchmarkCursorMoveToFrameRunningTurn is BenchmarkCursorMoveToFrame with the running turn
// shown, and BenchmarkCursorMoveToFrameStreaming the same with a fragment arriving per key.
func BenchmarkCursorMoveToFrameRunningTurn(b *testing.B) { cursorToFrame(b, false) }
func BenchmarkCursorMoveToFrameStreaming(b *testing.B)   { cursorToFrame(b, true) }

func cursorToFrame(b *testing.B, streaming bool) {
	a := liveBigApp(b)
	down, up := keyOf(a.km.List.Down), keyOf(a.km.List.Up)
	b.ResetTimer()
	for i := range b.N {
		if streaming {
			_, _ = a.Update(fragment(a, i))
		}
		k := down
		if i%2 == 1 {
			k = up
		}
		_, _ = a.Update(k)
		_ = a.View()
	}
}

// frameCounter counts the renderer's writes to the terminal: one per frame it flushes.
type frameCounter struct{ writes atomic.Int64 }

func (f *frameCounter) Write(p []byte) (int, error) { f.writes.Add(1); return len(p), nil }

// BenchmarkStreamingFramesPerSecond runs the app in a real Program for two seconds per
// rate while fragments arrive at that rate, and reports the frames the renderer wrote per
// second (bubbletea's renderer flushes at most 60 a second). Run it with -benchtime=1x.
func BenchmarkStreamingFramesPerSecond(b *testing.B) {
	for _, perSecond := range []int{0, 20, 200, 2000} {
		b.Run(fmt.Sprintf("fragments=%d/s", perSecond), func(b *testing.B) {
			for range b.N {
				fps, applied := streamFrames(b, perSecond, 2*time.Second)
				b.ReportMetric(fps, "frames/s")
				b.ReportMetric(applied, "fragments/s")
			}
		})
	}
}

func streamFrames(b *testing.B, perSecond int, d time.Duration) (fps, fragmentsPerSec float64) {
	a := liveBigApp(b)
	a.c.now = time.Now // the spinner turns with the wall clock here
	// The test loop dropped the spinner's ticks; the Program runs them.
	a.liveTicking = false
	out := &frameCounter{}
	p := tea.NewProgram(initialized{a.App}, tea.WithOutput(out), tea.WithInput(strings.NewReader("")), tea.WithoutSignals())
	done := make(chan struct{})
	go func() { _, _ = p.Run(); close(done) }()
	p.Send(tea.WindowSizeMsg{Width: 160, Height: 50}) // starts the running turn's spinner
	time.Sleep(300 * time.Millisecond)                // let it draw its first frames
	start, startWrites := time.Now(), out.writes.Load()
	sent := 0
	if perSecond > 0 {
		tick := time.NewTicker(time.Second / time.Duration(perSecond))
		for time.Since(start) < d {
			<-tick.C
			p.Send(fragment(a, sent))
			sent++
		}
		tick.Stop()
	} else {
		time.Sleep(d)
	}
	elapsed := time.Since(start).Seconds()
	frames := out.writes.Load() - startWrites
	p.Quit()
	<-done
	return float64(frames) / elapsed, float64(sent) / elapsed
}

// initialized runs an app whose Init already ran (liveBigApp loaded it), so that the
// measurement does not include loading 10,000 rows again.
type initialized struct{ *App }

func (m initialized) Init() tea.Cmd { return nil }

func (m initialized) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.App.Update(msg)
	return m, cmd
}
