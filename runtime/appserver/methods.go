package appserver

import "context"

// Typed calls. Each is a thin wrapper of Call so the method names live in one place.

// ThreadStart creates a thread (not on disk until its first turn).
func (c *Client) ThreadStart(ctx context.Context, p ThreadStartParams) (ThreadSessionResult, error) {
	var r ThreadSessionResult
	return r, c.Call(ctx, "thread/start", p, &r)
}

// ThreadResume loads a stored thread into this process; needed before turn/start after a
// restart or unload. Fails while another process holds the thread ("active writer").
func (c *Client) ThreadResume(ctx context.Context, p ThreadResumeParams) (ThreadSessionResult, error) {
	var r ThreadSessionResult
	return r, c.Call(ctx, "thread/resume", p, &r)
}

// ThreadFork branches a thread.
func (c *Client) ThreadFork(ctx context.Context, p ThreadForkParams) (ThreadSessionResult, error) {
	var r ThreadSessionResult
	return r, c.Call(ctx, "thread/fork", p, &r)
}

// ThreadList pages stored threads (newest created first by default).
func (c *Client) ThreadList(ctx context.Context, p ThreadListParams) (ThreadListResult, error) {
	var r ThreadListResult
	return r, c.Call(ctx, "thread/list", p, &r)
}

// ThreadRead reads a thread's metadata without turns; it never loads or changes the thread.
func (c *Client) ThreadRead(ctx context.Context, threadID string) (Thread, error) {
	var r ThreadReadResult
	err := c.Call(ctx, "thread/read", map[string]any{"threadId": threadID}, &r)
	return r.Thread, err
}

// TurnsList pages a thread's turns, newest first unless SortDirection is "asc".
func (c *Client) TurnsList(ctx context.Context, p TurnsListParams) (TurnsListResult, error) {
	var r TurnsListResult
	return r, c.Call(ctx, "thread/turns/list", p, &r)
}

// ItemsList pages a thread's items.
func (c *Client) ItemsList(ctx context.Context, p ItemsListParams) (ItemsListResult, error) {
	var r ItemsListResult
	return r, c.Call(ctx, "thread/items/list", p, &r)
}

// ThreadArchive moves a thread to the archive (and unloads it).
func (c *Client) ThreadArchive(ctx context.Context, threadID string) error {
	return c.Call(ctx, "thread/archive", map[string]any{"threadId": threadID}, nil)
}

// ThreadUnarchive restores an archived thread.
func (c *Client) ThreadUnarchive(ctx context.Context, threadID string) (Thread, error) {
	var r ThreadReadResult
	err := c.Call(ctx, "thread/unarchive", map[string]any{"threadId": threadID}, &r)
	return r.Thread, err
}

// ThreadUnsubscribe stops this connection's notifications for a thread.
func (c *Client) ThreadUnsubscribe(ctx context.Context, threadID string) (UnsubscribeResult, error) {
	var r UnsubscribeResult
	return r, c.Call(ctx, "thread/unsubscribe", map[string]any{"threadId": threadID}, &r)
}

// ThreadInjectItems appends raw Responses items to the model-visible history.
func (c *Client) ThreadInjectItems(ctx context.Context, threadID string, items []ResponseItem) error {
	return c.Call(ctx, "thread/inject_items", map[string]any{"threadId": threadID, "items": items}, nil)
}

// ThreadLoadedList lists the threads loaded in this App Server process.
func (c *Client) ThreadLoadedList(ctx context.Context) (LoadedListResult, error) {
	var r LoadedListResult
	return r, c.Call(ctx, "thread/loaded/list", map[string]any{}, &r)
}

// TurnStart starts a turn. On a thread with an active turn the App Server steers that turn
// instead and returns its id: callers that must not steer check the status first.
func (c *Client) TurnStart(ctx context.Context, p TurnStartParams) (Turn, error) {
	var r TurnResult
	err := c.Call(ctx, "turn/start", p, &r)
	return r.Turn, err
}

// TurnSteer adds input to the active turn.
func (c *Client) TurnSteer(ctx context.Context, p TurnSteerParams) (string, error) {
	var r TurnSteerResult
	err := c.Call(ctx, "turn/steer", p, &r)
	return r.TurnID, err
}

// TurnInterrupt stops the active turn; it ends as "interrupted".
func (c *Client) TurnInterrupt(ctx context.Context, threadID, turnID string) error {
	return c.Call(ctx, "turn/interrupt", map[string]any{"threadId": threadID, "turnId": turnID}, nil)
}
