package api

import (
	"errors"
	"testing"

	"github.com/codexhost/codexhost/model"
)

func TestResolveConnectionOrder(t *testing.T) {
	home := func() (string, error) { return "/h", nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	cases := []struct {
		name  string
		env   map[string]string
		token string
		ep    string
		home  func() (string, error)
		want  Connection
		code  model.Code
	}{
		{name: "host parameters win over everything", env: map[string]string{EnvEndpoint: "unix:///s", EnvToken: "t", EnvClientToken: "c"}, token: "flag", home: noHome,
			want: Connection{Kind: ConnHost, Endpoint: "unix:///s", Token: "t"}},
		{name: "half the host parameters is refused, not skipped", env: map[string]string{EnvToken: "t"}, token: "flag", home: home, code: model.CodeRuntimeUnreachable},
		{name: "flag token over the environment's", env: map[string]string{EnvClientToken: "env", EnvClientEndpoint: "tcp://127.0.0.1:1"}, token: "flag", home: home,
			want: Connection{Kind: ConnClient, Endpoint: "tcp://127.0.0.1:1", Token: "flag"}},
		{name: "client token defaults to the home's socket", env: map[string]string{EnvClientToken: "env"}, home: home,
			want: Connection{Kind: ConnClient, Endpoint: "unix:///h/runtime.sock", Token: "env"}},
		{name: "no token: the home's operator, whatever endpoint is set", env: map[string]string{EnvClientEndpoint: "tcp://127.0.0.1:1"}, ep: "tcp://127.0.0.1:2", home: home,
			want: Connection{Kind: ConnOperator, Endpoint: "unix:///h/runtime.sock"}},
		{name: "the home is asked only when needed", env: map[string]string{EnvClientToken: "env"}, ep: "tcp://127.0.0.1:2", home: noHome,
			want: Connection{Kind: ConnClient, Endpoint: "tcp://127.0.0.1:2", Token: "env"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ResolveConnection(ConnectionInputs{Getenv: func(k string) string { return c.env[k] }, ClientToken: c.token, Endpoint: c.ep, Home: c.home})
			if c.code != "" {
				if !model.IsCode(err, c.code) {
					t.Fatalf("want %s, got %v", c.code, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}
