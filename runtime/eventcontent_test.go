package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
)

// contentProbe is one subscriber of the content policy tests.
type contentProbe struct {
	name   string
	events <-chan api.Event
	// marker is the thread whose marker event this subscriber sees (one it may hear of).
	marker string
}

// subscribeProbe dials endpoint with token and subscribes to its events.
func subscribeProbe(t *testing.T, name, endpoint, token, marker string) contentProbe {
	t.Helper()
	c, err := api.Dial(context.Background(), endpoint, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	events, err := c.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return contentProbe{name: name, events: events, marker: marker}
}

const markerTurn = "marker-turn"

// deltasBeforeMarker reads p's events up to its marker event and returns the text of the
// thread.delta events seen before it. Events of one connection keep their order, so a
// delta published before the marker that has not come by then never comes.
func (p contentProbe) deltasBeforeMarker(t *testing.T) []string {
	t.Helper()
	var texts []string
	deadline := time.After(testWait)
	for {
		select {
		case ev := <-p.events:
			if ev.Type == api.EventThreadDelta && ev.Delta != nil {
				texts = append(texts, ev.Thread+":"+ev.Delta.Text)
			}
			if ev.Type == api.EventThreadProgress && ev.TurnID == markerTurn && ev.Thread == p.marker {
				return texts
			}
		case <-deadline:
			t.Fatalf("%s: no marker event", p.name)
		}
	}
}

// A delta carries conversation text: it reaches the client whose principal owns the thread
// and an operator (operator.read), never another client nor an agent (the runtime token is
// every agent's), on the home's runtime and through a follower alike.
func TestThreadDeltaReachesOnlyWhoMayReadTheText(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"a", "b"}, operators: []string{config.OperatorClient, "ops"},
		grants: map[string]config.Grant{"lister": {Scopes: nil, AllowRawTranscripts: true}}})
	mine := delegate(t, th.client("a"), api.DelegateStartParams{Harness: "shell", Task: "a's thread"})
	theirs := delegate(t, th.client("b"), api.DelegateStartParams{Harness: "shell", Task: "b's thread"})
	aID, bID := string(mine.Thread.ID), string(theirs.Thread.ID)
	waitStopped(t, th.client("a"), aID)
	waitStopped(t, th.client("b"), bID)

	f := th.startFollower()
	fEnd := f.Endpoints()[0]
	// Every probe's marker is a thread it hears of, so its marker proves it was reached.
	probes := []contentProbe{
		subscribeProbe(t, "owner", th.Endpoints()[0], th.tokens["a"], aID),
		subscribeProbe(t, "operator", th.Endpoints()[0], th.tokens["ops"], aID),
		subscribeProbe(t, "other client", th.Endpoints()[0], th.tokens["b"], bID),
		subscribeProbe(t, "client with raw transcripts but no scope", th.Endpoints()[0], th.tokens["lister"], aID),
		subscribeProbe(t, "agent", th.Endpoints()[0], th.RuntimeToken(), aID),
		subscribeProbe(t, "owner via follower", fEnd, th.tokens["a"], aID),
		subscribeProbe(t, "operator via follower", fEnd, th.tokens["ops"], aID),
		subscribeProbe(t, "other client via follower", fEnd, th.tokens["b"], bID),
		subscribeProbe(t, "agent of the follower", fEnd, f.RuntimeToken(), aID),
	}
	// The lister cannot hear of a's thread at all; give it a marker on a thread it owns.
	own := delegate(t, th.client("lister"), api.DelegateStartParams{Harness: "shell", Task: "lister's thread"})
	probes[3].marker = string(own.Thread.ID)
	waitStopped(t, th.client("lister"), probes[3].marker)

	// The follower republishes the holder's events once its own connection subscribed.
	ready := make(chan struct{})
	go func() {
		for {
			th.events.Publish(api.Event{Type: api.EventThreadProgress, Thread: "ready", TurnID: "ready"})
			select {
			case <-ready:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	waitFor(t, probes[6].events, func(ev api.Event) bool { return ev.Thread == "ready" })
	close(ready)

	th.onHarnessEvent(harness.Event{Thread: model.ThreadID(aID), Status: model.ThreadActive, TurnID: "t1",
		Delta: &harness.Delta{ItemID: "msg_1", Text: "the secret text", Seq: 1}})
	for _, id := range []string{aID, bID, probes[3].marker} {
		th.events.Publish(api.Event{Type: api.EventThreadProgress, Thread: id, TurnID: markerTurn})
	}
	want := map[string]bool{"owner": true, "operator": true, "owner via follower": true, "operator via follower": true}
	for _, p := range probes {
		got := p.deltasBeforeMarker(t)
		switch {
		case want[p.name] && (len(got) != 1 || got[0] != aID+":the secret text"):
			t.Errorf("%s got deltas %q, want the one of %s", p.name, got, aID)
		case !want[p.name] && len(got) != 0:
			t.Errorf("%s got deltas %q, want none", p.name, got)
		}
	}
}

func waitFor(t *testing.T, events <-chan api.Event, ok func(api.Event) bool) {
	t.Helper()
	deadline := time.After(testWait)
	for {
		select {
		case ev := <-events:
			if ok(ev) {
				return
			}
		case <-deadline:
			t.Fatal("no such event")
		}
	}
}

// The rule itself: which callers may receive conversation text at all.
func TestContentPolicyKeepsTextFromAgents(t *testing.T) {
	t.Parallel()
	delta := api.DeltaEvent("t", model.ThreadActive, "turn", api.ThreadDelta{ItemID: "m", Text: "words", Seq: 1})
	status := api.Event{Type: api.EventThreadStatus, Thread: "t", Status: model.ThreadIdle}
	for _, tc := range []struct {
		caller api.Caller
		want   []string
	}{
		{api.Caller{Kind: api.CallerClient, Client: "a"}, []string{api.EventThreadDelta, api.EventThreadStatus}},
		{api.Caller{Kind: api.CallerRuntime}, []string{api.EventThreadStatus}},
		{api.Caller{Kind: api.CallerNode, Client: "gw"}, []string{api.EventThreadStatus}},
	} {
		var got []string
		fn := api.WithContentPolicy(tc.caller, func(ev api.Event) { got = append(got, ev.Type) })
		fn(delta)
		fn(status)
		if len(got) != len(tc.want) || got[len(got)-1] != api.EventThreadStatus || (len(tc.want) == 2 && got[0] != api.EventThreadDelta) {
			t.Errorf("%+v received %v, want %v", tc.caller, got, tc.want)
		}
	}
}
