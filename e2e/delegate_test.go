package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"reflect"
	"syscall"
	"testing"
)

// Scenario: S000-15 — 100 `delegate start` processes at once with one request id make exactly
// one child thread: every process prints the same thread, one of them as new, and the client
// has one thread. The processes read the task from stdin, which they do before connecting;
// closing all their stdins together makes their requests arrive together.
func TestS000_15_ConcurrentStartsWithOneRequestIDMakeOneChild(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{"sink": echoHarness}})
	tok := h.addClient("burst")
	const n = 100
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmds := make([]*exec.Cmd, n)
	stdins := make([]io.WriteCloser, n)
	outs := make([]*bytes.Buffer, n)
	for i := range n {
		cmd := exec.CommandContext(ctx, bin, "delegate", "start", "--harness", "sink", "--request-id", "burst-1")
		cmd.Dir = h.work
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home, "CODEXHOST_CLIENT_TOKEN=" + tok}
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(stdin, "one task"); err != nil {
			t.Fatal(err)
		}
		cmds[i], stdins[i] = cmd, stdin
	}
	for _, stdin := range stdins {
		stdin.Close()
	}
	ids, fresh := map[string]int{}, 0
	for i, cmd := range cmds {
		err := cmd.Wait()
		var res startResult
		if jerr := json.Unmarshal(outs[i].Bytes(), &res); err != nil || jerr != nil || res.Thread.ID == "" {
			t.Fatalf("process %d: %v %v\n%s", i, err, jerr, outs[i])
		}
		ids[res.Thread.ID]++
		if !res.Existing {
			fresh++
		}
	}
	if len(ids) != 1 || fresh != 1 {
		t.Fatalf("%d processes printed threads %v, %d of them as new; want one thread, new once", n, ids, fresh)
	}
	var list listResult
	h.asClient(tok, "thread", "list", "--client", "burst", "--limit", "100").decode(t, &list)
	if len(list.Threads) != 1 || ids[list.Threads[0].ID] != n {
		t.Fatalf("thread list --client burst: %+v, want the one thread %v", list.Threads, ids)
	}
}

// Scenario: S000-19 — after the runtime is killed (SIGKILL, no shutdown) and started again on
// the same home, delegations, origins and refs come back: for external threads thread read,
// thread list --parent, --client and --ref give what they gave before, a native thread keeps
// its client origin and refs, and the request id still finds its child.
func TestS000_19_RelationsSurviveARestartOfServe(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{
		"root": delegating("leaf", "task of leaf", refB),
		"leaf": echoHarness,
	}})
	tok := h.addClient("ci")
	root := h.delegate(tok, "--harness", "root", "--task", "go", "--ref", refA, "--request-id", "restart-1")
	var leaf startResult
	decodeAnswer(t, h.waitCompleted(tok, root.Thread.ID).Result.Text, &leaf)
	h.waitCompleted(tok, leaf.Thread.ID)
	natTok := h.addClient("nat")
	native := h.delegate(natTok, "--harness", "codex", "--task", "[[reply:native answer]]", "--ref", refC)
	h.waitCompleted(natTok, native.Thread.ID)

	queries := [][]string{
		{"thread", "read", root.Thread.ID},
		{"thread", "read", leaf.Thread.ID, "--view", "messages"},
		{"thread", "list", "--parent", root.Thread.ID},
		{"thread", "list", "--client", "ci"},
		{"thread", "list", "--ref", refA},
		{"thread", "list", "--ref", refB},
	}
	before := make([]string, len(queries))
	for i, q := range queries {
		r := h.asClient(tok, q...)
		r.decode(t, new(any))
		before[i] = r.stdout
	}
	if got := h.read(tok, leaf.Thread.ID).Thread; got.Origin == nil || got.Origin.ParentThread != root.Thread.ID ||
		!reflect.DeepEqual(got.Refs, []string{refA, refB}) {
		t.Fatalf("before the restart, leaf is %+v", got)
	}

	h.restart(syscall.SIGKILL)

	for i, q := range queries {
		if after := h.asClient(tok, q...); after.stdout != before[i] {
			t.Errorf("%v after the restart:\n%s\nbefore:\n%s", q, after, before[i])
		}
	}
	got := h.waitCompleted(natTok, native.Thread.ID)
	if o := got.Thread.Origin; o == nil || *o != (origin{Kind: "client", Client: "nat", DelegationID: native.DelegationID}) || !reflect.DeepEqual(got.Thread.Refs, []string{refC}) ||
		got.Result.Text != "native answer" {
		t.Errorf("native thread after the restart: %+v, result %+v", got.Thread, got.Result)
	}
	if ids := h.listIDs(natTok, "--client", "nat"); !reflect.DeepEqual(ids, []string{native.Thread.ID}) {
		t.Errorf("thread list --client nat after the restart: %v", ids)
	}
	again := h.delegate(tok, "--harness", "root", "--task", "go", "--ref", refA, "--request-id", "restart-1")
	if !again.Existing || again.Thread.ID != root.Thread.ID {
		t.Errorf("the request id after the restart gave %+v, want the existing %s", again, root.Thread.ID)
	}
}
