package api

import (
	"path/filepath"

	"github.com/codexhost/codexhost/model"
)

// The variables of the host contract and of external clients. A harness gives its turn
// processes the first three; a script or bot sets the client pair itself.
const (
	EnvEndpoint       = "CODEXHOST_RUNTIME_ENDPOINT"
	EnvToken          = "CODEXHOST_RUNTIME_TOKEN"
	EnvThreadID       = "CODEXHOST_THREAD_ID"
	EnvClientToken    = "CODEXHOST_CLIENT_TOKEN"
	EnvClientEndpoint = "CODEXHOST_ENDPOINT"
)

// SocketName is the runtime's Unix socket inside the home.
const SocketName = "runtime.sock"

// HomeSocket is the endpoint of the socket of the runtime holding home.
func HomeSocket(home string) string { return UnixEndpoint(filepath.Join(home, SocketName)) }

// ConnKind says as whom a face connects.
type ConnKind int

const (
	// ConnHost: the host parameters a harness gave this process; it is an agent.
	ConnHost ConnKind = iota
	// ConnClient: a client token, on the given endpoint or the home's socket.
	ConnClient
	// ConnOperator: the home's socket with no token; the socket recognises its user.
	ConnOperator
)

// Connection is where and with what a face dials.
type Connection struct {
	Kind     ConnKind
	Endpoint string
	Token    string
}

// ConnectionInputs are what a face knows: its environment, its flags and where the home is.
type ConnectionInputs struct {
	Getenv      func(string) string
	ClientToken string // --client-token
	Endpoint    string // --endpoint
	// Home is called only when the home's socket is needed.
	Home func() (string, error)
}

// ResolveConnection decides, for every face alike, whom to dial: host parameters when either
// is present (both must be), else a client token from the flag or the environment, else the
// home's operator. Nothing else is tried.
func ResolveConnection(in ConnectionInputs) (Connection, error) {
	endpoint, token := in.Getenv(EnvEndpoint), in.Getenv(EnvToken)
	if endpoint != "" || token != "" {
		if endpoint == "" || token == "" {
			return Connection{}, model.Errorf(model.CodeRuntimeUnreachable,
				"run the command inside a codexhost harness, which sets both "+EnvEndpoint+" and "+EnvToken,
				"incomplete host connection parameters")
		}
		return Connection{Kind: ConnHost, Endpoint: endpoint, Token: token}, nil
	}
	c := Connection{Kind: ConnClient, Token: firstSet(in.ClientToken, in.Getenv(EnvClientToken)), Endpoint: firstSet(in.Endpoint, in.Getenv(EnvClientEndpoint))}
	if c.Token == "" {
		c = Connection{Kind: ConnOperator}
	}
	if c.Endpoint == "" {
		home, err := in.Home()
		if err != nil {
			return Connection{}, err
		}
		c.Endpoint = HomeSocket(home)
	}
	return c, nil
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
