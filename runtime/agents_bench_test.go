package runtime

import (
	"context"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
)

// What deciding who a connection is costs: dial and authenticate, on the Unix socket (peer
// credentials and an ancestry walk) and on loopback TCP (the socket's owner found among the
// runtime's descendants), with a client token and as the operator.
func BenchmarkAuthenticate(b *testing.B) {
	th := newTestHost(b, hostOptions{clients: []string{"bot"}})
	th.close()
	th.opts.Listen = "127.0.0.1:0"
	th.open()
	eps := th.Endpoints()
	cases := []struct{ name, endpoint, token string }{
		{"unix/client", eps[0], th.tokens["bot"]},
		{"unix/operator", eps[0], ""},
		{"tcp/client", eps[1], th.tokens["bot"]},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cl, err := api.Dial(context.Background(), c.endpoint, c.token)
				if err != nil {
					b.Fatal(err)
				}
				_ = cl.Close()
			}
		})
	}
}
