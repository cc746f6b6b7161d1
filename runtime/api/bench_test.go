package api

import (
	"context"
	"testing"
)

// BenchmarkCallRoundTrip measures one call over the Unix socket: encode, write, dispatch
// to the handler in its own goroutine, answer, match by id, decode.
func BenchmarkCallRoundTrip(b *testing.B) {
	s := startServer(b, ServerOptions{})
	c := dial(b, s.endpoint)
	ctx := context.Background()
	params := ThreadReadParams{Thread: "019a0000-0000-7000-8000-000000000000", View: "result"}
	var out ThreadReadParams
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Call(ctx, "echo", params, &out); err != nil {
			b.Fatal(err)
		}
	}
	if out != params {
		b.Fatalf("echo returned %+v", out)
	}
}

// BenchmarkCallRoundTripParallel is the same with many goroutines sharing one client.
func BenchmarkCallRoundTripParallel(b *testing.B) {
	s := startServer(b, ServerOptions{})
	c := dial(b, s.endpoint)
	params := ThreadReadParams{Thread: "019a0000-0000-7000-8000-000000000000", View: "result"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var out ThreadReadParams
		for pb.Next() {
			if err := c.Call(context.Background(), "echo", params, &out); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
