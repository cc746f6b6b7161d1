package e2e

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// Paired nodes end to end: a gateway and two nodes, each a `codexhost serve --listen` of its
// own with its own Codex home, on loopback.

type (
	catalogHost struct {
		ID           string   `json:"id"`
		Kind         string   `json:"kind"`
		Capabilities []string `json:"capabilities"`
		Health       struct {
			State string `json:"state"`
			Code  string `json:"code"`
		} `json:"health"`
	}
	hostSessions struct {
		Host     string `json:"host"`
		Sessions []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Cwd    string `json:"cwd"`
		} `json:"sessions"`
		Error *cliError `json:"error"`
	}
	continueResult struct {
		Host            string     `json:"host"`
		Source          string     `json:"source"`
		Thread          threadInfo `json:"thread"`
		State           string     `json:"state"`
		CanonicalThread string     `json:"canonicalThread"`
		Binding         string     `json:"binding"`
		Existing        bool       `json:"existing"`
		History         *struct {
			Messages int `json:"messages"`
		} `json:"history"`
	}
	transcriptResult struct {
		Host  string `json:"host"`
		Turns []struct {
			Messages []struct {
				Role string `json:"role"`
				Text string `json:"text"`
			} `json:"messages"`
		} `json:"turns"`
	}
)

// operator runs an operator command on h's home as the person at the keyboard (the home's
// local operator client).
func (h *host) operator(args ...string) result {
	h.t.Helper()
	return run(h.t, h.work, []string{"HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home}, args...)
}

// nodeToken makes a node token on h for a gateway.
func (h *host) nodeToken(gateway string) string {
	h.t.Helper()
	var out struct {
		Token    string   `json:"token"`
		Commands []string `json:"commands"`
	}
	h.operator("node", "allow", gateway, "--json").decode(h.t, &out)
	if len(out.Token) < 32 {
		h.t.Fatalf("node allow gave token %q", out.Token)
	}
	return out.Token
}

// scopedClient adds a client with the given flags to h and returns its token.
func (h *host) scopedClient(name string, flags ...string) string {
	h.t.Helper()
	var out struct{ Token string }
	h.operator(append([]string{"client", "add", name, "--json"}, flags...)...).decode(h.t, &out)
	return out.Token
}

func sessionsOf(t *testing.T, res []hostSessions, hostID string) hostSessions {
	t.Helper()
	for _, hs := range res {
		if hs.Host == hostID {
			return hs
		}
	}
	t.Fatalf("no host %s in %+v", hostID, res)
	return hostSessions{}
}

func sessionIDs(hs hostSessions) []string {
	ids := make([]string, len(hs.Sessions))
	for i, s := range hs.Sessions {
		ids[i] = s.ID
	}
	return ids
}

// Scenarios: S003-18, S003-19, S003-20, S003-03 (with nodes), S003-21 (passive node listing).
func TestS003_18_19_20_PairedNodes(t *testing.T) {
	t.Parallel()
	nodeA := startHost(t, hostConfig{listen: true})
	// Node B offers its catalog but not the resume command.
	nodeB := startHost(t, hostConfig{listen: true, config: "[node]\ncommands = [\"codex.appServer.threads.list.v1\", \"codex.appServer.thread.turns.list.v1\"]\n"})
	tokenA, tokenB := nodeA.nodeToken("gw"), nodeB.nodeToken("gw")
	threadA, _ := codexfixture.StoredThread(t, nodeA.codexHome, "", "first question on A", "second question on A")
	threadB, _ := codexfixture.StoredThread(t, nodeB.codexHome, "", "only question on B")
	requestsA := len(nodeA.fake.Requests())

	addr := func(h *host) string { return strings.TrimPrefix(h.tcp, "tcp://") }
	gw := startHost(t, hostConfig{config: "[nodes.a]\naddress = " + tomlString(addr(nodeA)) + "\ntoken = " + tomlString(tokenA) + "\n" +
		"[nodes.b]\naddress = " + tomlString(addr(nodeB)) + "\ntoken = " + tomlString(tokenB) + "\n" +
		"[gateway.nodes.commands]\nallow = [\"codex.cli.session.resume\"]\n"})

	// Hosts: both nodes healthy; continue only where all three commands are offered and
	// allowed; archive on no node.
	var hosts struct{ Hosts []catalogHost }
	gw.operator("hosts", "--json").decode(t, &hosts)
	caps := map[string][]string{}
	for _, h := range hosts.Hosts {
		caps[h.ID] = h.Capabilities
		if strings.HasPrefix(h.ID, "node:") && (h.Kind != "node" || h.Health.State != "ok") {
			t.Fatalf("node host %+v", h)
		}
	}
	if !slices.Equal(caps["node:a"], []string{"list", "transcript", "continue"}) || !slices.Equal(caps["node:b"], []string{"list", "transcript"}) {
		t.Fatalf("capabilities %v", caps)
	}

	// Listing groups rows by host; a node's rows are its own threads.
	var list struct{ Hosts []hostSessions }
	gw.operator("sessions", "--json").decode(t, &list)
	if a := sessionsOf(t, list.Hosts, "node:a"); a.Error != nil || !slices.Equal(sessionIDs(a), []string{threadA}) {
		t.Fatalf("node:a rows %+v", a)
	}
	if b := sessionsOf(t, list.Hosts, "node:b"); b.Error != nil || !slices.Equal(sessionIDs(b), []string{threadB}) {
		t.Fatalf("node:b rows %+v", b)
	}
	if local := sessionsOf(t, list.Hosts, "gateway:local"); local.Error != nil || len(local.Sessions) != 0 {
		t.Fatalf("gateway:local rows %+v", local)
	}

	// S003-20: a node without continue stays readable; no node row is archived.
	var tr transcriptResult
	gw.operator("transcript", threadB, "--host", "node:b", "--json").decode(t, &tr)
	if len(tr.Turns) != 1 || len(tr.Turns[0].Messages) == 0 || tr.Turns[0].Messages[0].Text != "only question on B" {
		t.Fatalf("node:b transcript %+v", tr)
	}
	if e := gw.operator("continue", threadB, "--host", "node:b", "--json").failure(t); e.Code != "FAILED_PRECONDITION" || !strings.Contains(e.Message, "codex.cli.session.resume") {
		t.Fatalf("continue on node:b: %+v", e)
	}
	for _, target := range [][2]string{{threadA, "node:a"}, {threadB, "node:b"}} {
		if e := gw.operator("archive", target[0], "--host", target[1], "--confirm-no-other-runner", "--json").failure(t); e.Code != "FAILED_PRECONDITION" {
			t.Fatalf("archive on %s: %+v", target[1], e)
		}
	}

	// S003-18: operator.write is not enough for a node's thread, and the refusal comes before
	// any binding is looked up or made.
	writer := gw.scopedClient("writer", "--scope", "operator.write", "--allow-write-controls")
	if e := gw.asClient(writer, "continue", threadA, "--host", "node:a", "--json").failure(t); e.Code != "PERMISSION_DENIED" {
		t.Fatalf("continue with operator.write: %+v", e)
	}
	var threads listResult
	gw.asClient(writer, "thread", "list", "--all-cwd").decode(t, &threads)
	if len(threads.Threads) != 0 {
		t.Fatalf("a refused continue left threads %+v", threads.Threads)
	}

	// S003-19: operator.admin binds to the exact node thread with bounded history; a repeat
	// opens the same supervised thread.
	admin := gw.scopedClient("admin", "--scope", "operator.admin", "--allow-write-controls")
	var cont continueResult
	gw.asClient(admin, "continue", threadA, "--host", "node:a", "--json").decode(t, &cont)
	if cont.Binding != "codex-cli-node-session" || cont.CanonicalThread != threadA || cont.State != "bound" || cont.Existing ||
		cont.History == nil || cont.History.Messages != 4 {
		t.Fatalf("node continue %+v", cont)
	}
	sup := cont.Thread.ID
	var again continueResult
	gw.asClient(admin, "continue", threadA, "--host", "node:a", "--json").decode(t, &again)
	if again.Thread.ID != sup || !again.Existing {
		t.Fatalf("repeated continue %+v, want existing %s", again, sup)
	}
	// Adoption dedupe never lets a lesser scope through to the existing binding.
	if e := gw.asClient(writer, "continue", threadA, "--host", "node:a", "--json").failure(t); e.Code != "PERMISSION_DENIED" {
		t.Fatalf("continue of a bound thread with operator.write: %+v", e)
	}
	// Listing and binding never ran a model turn on the node.
	if n := len(nodeA.fake.Requests()); n != requestsA {
		t.Fatalf("listing and continue made %d model requests on node A", n-requestsA)
	}

	// A later send resumes that exact thread on node A: node A's model gets the prompt, the
	// gateway's never does, and the answer comes back as the turn's result.
	nodeA.fake.Enqueue(fakemodel.Reply("ANSWER FROM NODE A"))
	if e := gw.asClient(writer, "thread", "send", sup, "--message", "third question via gateway").failure(t); e.Code != "PERMISSION_DENIED" {
		t.Fatalf("send with operator.write: %+v", e)
	}
	var sent struct {
		TurnID string `json:"turnId"`
	}
	gw.asClient(admin, "thread", "send", sup, "--message", "third question via gateway").decode(t, &sent)
	var done readResult
	gw.asClient(admin, "thread", "wait", sup, "--timeout-ms", "60000").decode(t, &done)
	if done.Result == nil || done.Result.Status != "completed" || done.Result.Text != "ANSWER FROM NODE A" {
		t.Fatalf("resumed turn %+v", done)
	}
	reqs := nodeA.fake.Requests()
	if len(reqs) != requestsA+1 || reqs[len(reqs)-1].UserText != "third question via gateway" {
		t.Fatalf("node A's model requests %d after %d; last %+v", len(reqs), requestsA, reqs[len(reqs)-1].UserText)
	}
	if n := len(gw.fake.Requests()); n != 0 {
		t.Fatalf("the gateway's model got %d requests", n)
	}
	// The node thread itself holds the new turn; the supervised thread reads it.
	gw.operator("transcript", threadA, "--host", "node:a", "--json").decode(t, &tr)
	if len(tr.Turns) != 3 {
		t.Fatalf("node A thread has %d turns after the resumed turn, want 3", len(tr.Turns))
	}
	var read readResult
	gw.asClient(admin, "thread", "read", sup, "--view", "messages").decode(t, &read)
	if len(read.Messages) < 2 || read.Messages[len(read.Messages)-1].Text != "ANSWER FROM NODE A" {
		t.Fatalf("supervised thread messages %+v", read.Messages)
	}

	// S003-03: node B dies; its host fails alone, with no rows and no invented statuses.
	nodeB.stop(syscall.SIGKILL)
	gw.operator("sessions", "--json").decode(t, &list)
	if b := sessionsOf(t, list.Hosts, "node:b"); b.Error == nil || b.Error.Code != "NODE_OFFLINE" || len(b.Sessions) != 0 {
		t.Fatalf("node:b after kill %+v", b)
	}
	if a := sessionsOf(t, list.Hosts, "node:a"); a.Error != nil || !slices.Equal(sessionIDs(a), []string{threadA}) {
		t.Fatalf("node:a after node:b died %+v", a)
	}
	gw.operator("hosts", "--json").decode(t, &hosts)
	for _, h := range hosts.Hosts {
		if h.ID == "node:b" && (h.Health.State != "error" || h.Health.Code != "NODE_OFFLINE") {
			t.Fatalf("node:b health %+v", h)
		}
	}
}
