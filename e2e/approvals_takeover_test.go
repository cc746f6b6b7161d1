package e2e

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

type lostApproval struct {
	approvalView
	Outcome   string `json:"outcome"`
	TurnID    string `json:"turnId"`
	DecidedAt string `json:"decidedAt"`
}

// approvalSettled waits until the client lists approval id as lost with an outcome.
func approvalSettled(t *testing.T, h *host, token, id string) lostApproval {
	t.Helper()
	var last []lostApproval
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var res struct {
			Approvals []lostApproval `json:"approvals"`
		}
		h.asClient(token, "approvals", "--json").decode(t, &res)
		last = res.Approvals
		for _, a := range res.Approvals {
			if a.ID == id && a.State == "lost" && a.Outcome != "" {
				return a
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("approval %s never listed as lost with an outcome: %+v", id, last)
	return lostApproval{}
}

// checkLost checks a lost approval against the thread as it reads now: the record keeps what
// was asked, no decision is claimed, and its outcome is the turn's real one.
func checkLost(t *testing.T, h *host, token string, asked approvalView, got lostApproval) {
	t.Helper()
	if got.Command != asked.Command || got.Kind != "command" || got.Decision != "" || got.DecidedBy == "" || got.DecidedAt == "" {
		t.Fatalf("lost approval %+v, asked %+v", got, asked)
	}
	var read struct {
		Thread struct {
			LastTurn *struct{ ID, Status string } `json:"lastTurn"`
		} `json:"thread"`
	}
	h.asClient(token, "thread", "read", asked.ThreadID).decode(t, &read)
	if lt := read.Thread.LastTurn; lt == nil || lt.ID != got.TurnID || lt.Status != got.Outcome {
		t.Fatalf("outcome %q of turn %s; the thread reads %+v", got.Outcome, got.TurnID, lt)
	}
	t.Logf("lost approval: %s by %q, turn %s ended %s", got.State, got.DecidedBy, got.TurnID, got.Outcome)
	out := h.asClient(token, "approvals").stdout
	if want := "the turn ended " + got.Outcome; !strings.Contains(out, want) {
		t.Fatalf("approvals does not say %q:\n%s", want, out)
	}
}

// Issue 28 (restart): a pending approval outlives the runtime that held it. After serve is
// stopped and started again on the home, approvals lists it as lost (the App Server that
// asked ended with the runtime, so no decision reached Codex), with the turn's real outcome.
func TestApprovalPendingAcrossARestartIsReportedLost(t *testing.T) {
	h := startHost(t, hostConfig{})
	ci := h.addClient("ci")
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo across-a-restart]]")
	asked := pendingApproval(t, h, ci, th.Thread.ID)
	h.restart(syscall.SIGTERM)
	checkLost(t, h, ci, asked, approvalSettled(t, h, ci, asked.ID))
	if e := h.asClient(ci, "approve", asked.ID, "--decision", "accept", "--json").failure(t); e.Code != "FAILED_PRECONDITION" {
		t.Fatalf("answering a lost approval: %+v", e)
	}
}

// Issue 28 (takeover): a follower takes the home over from a runtime killed while an approval
// waits; the follower lists the approval as lost with the turn's real outcome.
func TestApprovalPendingAtFollowerTakeoverIsReportedLost(t *testing.T) {
	h := startHost(t, hostConfig{})
	ci := h.addClient("ci")
	roles := startFollower(t, h)
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo at-a-takeover]]")
	asked := pendingApproval(t, h, ci, th.Thread.ID)
	h.stop(syscall.SIGKILL)
	select {
	case role := <-roles:
		if role != "primary" {
			t.Fatalf("the follower announced %s", role)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the follower did not take the home over")
	}
	checkLost(t, h, ci, asked, approvalSettled(t, h, ci, asked.ID))
}

// startFollower starts a second serve on h's home, which follows the running one; roles
// receives each role it announces after the first (follower).
func startFollower(t *testing.T, h *host) <-chan string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--json")
	cmd.Env, cmd.Dir = h.serveEnv, h.home
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	roles := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var a serveAnnounce
			if json.Unmarshal(sc.Bytes(), &a) == nil {
				roles <- a.Role
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(stopTimeout):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("follower stderr:\n%s", stderr)
		}
	})
	select {
	case r := <-roles:
		if r != "follower" {
			t.Fatalf("the second serve announced %s", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the second serve announced nothing\n%s", stderr)
	}
	return roles
}
