package api

// EventWatchState says a watch changed state: Thread is the watched thread, Status the
// watch's new state (model.Watch*). It carries no notification text; a view reads
// thread.watches again.
const EventWatchState = "watch.state"
