package cli

import (
	"context"
	"sync"
	"testing"
)

// Tests give the commands an environment of their own instead of changing the process's
// (t.Setenv), so that they can run in parallel.

var testEnvs sync.Map // *testing.T → *testVars

type testVars struct {
	mu   sync.Mutex
	vars map[string]string
}

// setenv sets key for the commands this test runs, as t.Setenv would for the process.
func setenv(t testing.TB, key, value string) {
	t.Helper()
	v, loaded := testEnvs.LoadOrStore(t, &testVars{vars: map[string]string{}})
	if !loaded {
		t.Cleanup(func() { testEnvs.Delete(t) })
	}
	tv := v.(*testVars)
	tv.mu.Lock()
	defer tv.mu.Unlock()
	tv.vars[key] = value
}

// testEnv is the process's environment with this test's variables over it.
func testEnv(t testing.TB) env {
	v, ok := testEnvs.Load(t)
	if !ok {
		return processEnv
	}
	tv := v.(*testVars)
	tv.mu.Lock()
	defer tv.mu.Unlock()
	vars := make(map[string]string, len(tv.vars))
	for k, val := range tv.vars {
		vars[k] = val
	}
	return processEnv.overlay(vars)
}

// testCtx carries this test's environment to what a command would be given.
func testCtx(t testing.TB) context.Context { return withEnv(context.Background(), testEnv(t)) }
