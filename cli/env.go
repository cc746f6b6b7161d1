package cli

import (
	"context"
	"os"
	"strings"
)

// env is the environment the commands read: the process's own, or one a caller gives
// (ExecuteEnv), so that commands run side by side in one process each see their own.
type env struct {
	lookup  func(key string) (string, bool)
	environ func() []string
}

// processEnv is the process's environment.
var processEnv = env{lookup: os.LookupEnv, environ: os.Environ}

// get is the value of key, "" when it is not set.
func (e env) get(key string) string {
	v, _ := e.lookup(key)
	return v
}

// overlay is e with vars set over it; an empty value stands as set to "".
func (e env) overlay(vars map[string]string) env {
	return env{
		lookup: func(key string) (string, bool) {
			if v, ok := vars[key]; ok {
				return v, true
			}
			return e.lookup(key)
		},
		environ: func() []string {
			out := make([]string, 0, len(vars))
			for _, kv := range e.environ() {
				name, _, _ := strings.Cut(kv, "=")
				if _, ok := vars[name]; !ok {
					out = append(out, kv)
				}
			}
			for k, v := range vars {
				out = append(out, k+"="+v)
			}
			return out
		},
	}
}

type envKey struct{}

func withEnv(ctx context.Context, e env) context.Context { return context.WithValue(ctx, envKey{}, e) }

// envOf is the environment a command runs in: the one its context carries, else the
// process's.
func envOf(ctx context.Context) env {
	if ctx != nil {
		if e, ok := ctx.Value(envKey{}).(env); ok {
			return e
		}
	}
	return processEnv
}
