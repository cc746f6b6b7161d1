package api

// Which subscribers receive conversation text. Events are metadata (ids, statuses) and follow
// principal visibility (the runtime's SubscribeCaller, threads.Service.VisibleTo): a client without
// operator.read hears of its own principal's threads only. An event that carries the text of
// a conversation (thread.delta) is narrower still: it goes only to a named client that sees
// the thread by that rule, that is the client whose principal owns the thread, or one holding
// operator.read, which is what reading transcripts of threads one was not given needs
// (catalog.transcript). Agents never receive it: every process the host starts shares the
// runtime token, so a subscription cannot show which principal's agent it is, and the text
// would reach the agents of every other principal. Nodes cannot subscribe at all.
//
// A follower republishes what the holder of the home sends it and filters with the same two
// steps: this rule, then the holder's answer to thread.visible for the caller.

// carriesContent reports an event that holds conversation text.
func carriesContent(ev Event) bool { return ev.Type == EventThreadDelta || ev.Delta != nil }

// mayReceiveContent reports whether caller may receive conversation text of the threads it
// sees events of.
func mayReceiveContent(caller Caller) bool { return caller.Kind == CallerClient }

// WithContentPolicy wraps a subscriber's fn so that it never gets conversation text it may
// not receive. The thread filter of SubscribeCaller then applies to what passes.
func WithContentPolicy(caller Caller, fn func(Event)) func(Event) {
	if mayReceiveContent(caller) {
		return fn
	}
	return func(ev Event) {
		if !carriesContent(ev) {
			fn(ev)
		}
	}
}
