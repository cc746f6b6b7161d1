package follow

import (
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// A follower may pass on requests of configured clients only, each as the kind its entry
// says, and never a forward itself.
func TestCheckForwardedAdmitsConfiguredClientsAsTheirKind(t *testing.T) {
	cfg := &config.Config{Clients: map[string]config.Client{"bot": {}, "lab": {Node: true}}}
	ok := []api.ForwardParams{
		{Caller: api.Caller{Kind: api.CallerClient, Client: "bot"}, Method: api.MethodRuntimeInfo},
		{Caller: api.Caller{Kind: api.CallerNode, Client: "lab"}, Method: api.MethodNodeDescribe},
	}
	for _, p := range ok {
		if err := checkForwarded(cfg, p); err != nil {
			t.Errorf("%+v: %v", p.Caller, err)
		}
	}
	refused := []api.ForwardParams{
		{Caller: api.Caller{Kind: api.CallerClient, Client: "stranger"}, Method: api.MethodRuntimeInfo},
		{Caller: api.Caller{Kind: api.CallerClient, Client: "lab"}, Method: api.MethodRuntimeInfo}, // a node posing as a client
		{Caller: api.Caller{Kind: api.CallerRuntime}, Method: api.MethodRuntimeInfo},
		{Caller: api.Caller{Kind: api.CallerClient, Client: "bot"}, Method: api.MethodRuntimeForward},
	}
	for _, p := range refused {
		if err := checkForwarded(cfg, p); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("%+v %s: %v, want INVALID_ARGUMENT", p.Caller, p.Method, err)
		}
	}
}
