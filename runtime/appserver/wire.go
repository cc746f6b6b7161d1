package appserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// readLoop owns stdout. It never blocks on a consumer: responses go to buffered channels,
// notifications to queued subscribers, server requests to their own goroutines.
func (c *Client) readLoop(p *process, stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			c.dispatch(p, line)
		}
		if err != nil {
			break
		}
	}
	var waitErr error
	if p.cmd != nil {
		waitErr = p.cmd.Wait()
	}
	closeFile(p.stderr)
	reason := fmt.Errorf("%w (%s); see %s", ErrExited, exitText(waitErr), c.logName())
	p.fail(reason)
}

// readLine reads one newline-terminated message; over-long lines are skipped whole.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) <= maxLineBytes {
			buf = append(buf, chunk...)
		} else {
			buf = buf[:0:0]
			// Discard the rest of the line and report nothing for it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			return []byte{' '}, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(buf), err
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func (c *Client) dispatch(p *process, line []byte) {
	if len(line) == 0 || line[0] != '{' {
		if len(bytes.TrimSpace(line)) > 0 {
			c.malformed.Add(1)
		}
		return
	}
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		c.malformed.Add(1)
		return
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		c.serverRequest(p, m)
	case m.Method != "":
		c.publish(Notification{Method: m.Method, Params: m.Params})
	case len(m.ID) > 0:
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil {
			c.malformed.Add(1)
			return
		}
		p.resolve(id, m)
	default:
		c.malformed.Add(1)
	}
}

func (c *Client) serverRequest(p *process, m wireMessage) {
	c.handlerMu.RLock()
	h := c.handlers[m.Method]
	c.handlerMu.RUnlock()
	if h == nil {
		c.publish(Notification{Method: m.Method, Params: m.Params, ID: m.ID})
		return
	}
	go func() {
		// A request lives as long as the process that asked: an approval may wait for a
		// person far longer than any call timeout, and the handler bounds itself.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-p.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		result, err := h(ctx, m.Params)
		reply := map[string]any{"id": m.ID}
		if err != nil {
			reply["error"] = map[string]any{"code": -32000, "message": err.Error()}
		} else {
			reply["result"] = result
		}
		_ = p.write(reply)
	}()
}

// Handle registers the handler for a server→client request method.
func (c *Client) Handle(method string, h RequestHandler) {
	c.handlerMu.Lock()
	defer c.handlerMu.Unlock()
	if h == nil {
		delete(c.handlers, method)
		return
	}
	c.handlers[method] = h
}

func (p *process) resolve(id int64, m wireMessage) {
	p.pendingMu.Lock()
	ch := p.pending[id]
	delete(p.pending, id)
	p.pendingMu.Unlock()
	if ch == nil {
		return // late reply of a call that timed out
	}
	if m.Error != nil {
		ch <- rpcResult{err: m.Error}
		return
	}
	ch <- rpcResult{result: m.Result}
}

func (p *process) fail(reason error) {
	p.pendingMu.Lock()
	p.exited = true
	p.exitErr = reason
	pending := p.pending
	p.pending = map[int64]chan rpcResult{}
	p.pendingMu.Unlock()
	for _, ch := range pending {
		ch <- rpcResult{err: reason}
	}
	close(p.done)
}

func (p *process) write(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.stdin.Write(b); err != nil {
		return fmt.Errorf("%w: write: %v", ErrExited, err)
	}
	return nil
}

func (p *process) notify(method string, params any) error {
	msg := map[string]any{"method": method}
	if params != nil {
		msg["params"] = params
	}
	return p.write(msg)
}

func (p *process) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := p.nextID.Add(1)
	ch := make(chan rpcResult, 1)
	p.pendingMu.Lock()
	if p.exited {
		err := p.exitErr
		p.pendingMu.Unlock()
		return nil, err
	}
	p.pending[id] = ch
	p.pendingMu.Unlock()

	if err := p.write(request{ID: id, Method: method, Params: params}); err != nil {
		p.forget(id)
		return nil, err
	}
	select {
	case res := <-ch:
		var rpcErr *RPCError
		if errors.As(res.err, &rpcErr) {
			rpcErr.Method = method
		}
		return res.result, res.err
	case <-ctx.Done():
		p.forget(id)
		return nil, fmt.Errorf("app-server %s: %w", method, ctx.Err())
	}
}

func (p *process) forget(id int64) {
	p.pendingMu.Lock()
	delete(p.pending, id)
	p.pendingMu.Unlock()
}

// kill ends the whole process group; closing stdin alone lets the native server exit, but a
// wrapper killed first would leave it running.
func (p *process) kill() {
	_ = p.stdin.Close()
	p.killGroup()
}
