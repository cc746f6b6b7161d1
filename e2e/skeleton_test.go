package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attacks on the runtime's trust model from a harness process: whatever a process below the
// runtime shows — no token, another client's token, the home's files — it is an agent of its
// own thread's principal, and nothing more.

// scriptHarness runs each turn's prompt as a shell script; its output is the answer.
var scriptHarness = []string{"sh"}

// sections splits a script's answer at lines "== NAME" into NAME → the lines after it.
func sections(answer string) map[string]string {
	out := map[string]string{}
	name := ""
	for _, line := range strings.Split(answer, "\n") {
		if rest, ok := strings.CutPrefix(line, "== "); ok {
			name = rest
			continue
		}
		out[name] += line + "\n"
	}
	return out
}

// cliCode is the error code of the CLI's JSON error in text, "" when none.
func cliCode(t *testing.T, text string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		var e struct{ Error cliError }
		if strings.HasPrefix(line, `{"error"`) && json.Unmarshal([]byte(line), &e) == nil {
			return e.Error.Code
		}
	}
	return ""
}

// The operator is not a token: the home holds no operator secret, and a process below the
// runtime that connects without a token (as an operator command does), with a client's token
// it got hold of, or from a process that left the turn's session and process group, is
// refused. Its own token makes it an agent that lists, sends to and cancels only its own
// principal's threads.
func TestNoSkeletonKeyBelowTheRuntime(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{"sh": scriptHarness, "leaf": echoHarness},
		env: []string{"OPENAI_API_KEY=sk-e2e-model-key"}})
	bot := h.addClient("bot")
	victim := h.addClient("victim")
	victimThread := h.delegate(victim, "--harness", "sh", "--task", "sleep 60").Thread.ID
	if _, err := os.Stat(filepath.Join(h.home, "operator.token")); !os.IsNotExist(err) {
		t.Fatalf("the home holds an operator token: %v", err)
	}

	bare := `env -u CODEXHOST_RUNTIME_TOKEN -u CODEXHOST_RUNTIME_ENDPOINT CODEXHOST_HOME='` + h.home + `' HOME=/nonexistent "$CODEXHOST_CLI_PATH"`
	script := strings.Join([]string{
		`cat '` + h.home + `/operator.token' >/dev/null 2>&1 && echo READ-A-TOKEN`,
		`echo "== operator"`, bare + ` sessions --json 2>&1`,
		`echo "== operator-thread-list"`, bare + ` thread list --operator 2>&1`,
		`echo "== stolen-client-token"`, bare + ` client whoami --client-token '` + victim + `' 2>&1`,
		`echo "== escaped"`,
		`cat > escape.sh <<'EOS'`, `(` + bare + ` sessions --json > escaped.out 2>&1; echo done > escaped.done) &`, `EOS`,
		`setsid sh escape.sh`,
		`i=0; while [ ! -e escaped.done ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; cat escaped.out`,
		`echo "== whoami"`, `"$CODEXHOST_CLI_PATH" client whoami 2>&1`,
		`echo "== list"`, `"$CODEXHOST_CLI_PATH" thread list --all-cwd 2>&1`,
		`echo "== cancel-victim"`, `"$CODEXHOST_CLI_PATH" thread cancel ` + victimThread + ` 2>&1`,
		`echo "== send-victim"`, `"$CODEXHOST_CLI_PATH" thread send ` + victimThread + ` --message hi 2>&1`,
		`echo "== parent-victim"`, `"$CODEXHOST_CLI_PATH" delegate start --harness leaf --task x --parent-thread ` + victimThread + ` 2>&1`,
		`echo "== notify-victim"`, `"$CODEXHOST_CLI_PATH" thread watch "$CODEXHOST_THREAD_ID" --notify ` + victimThread + ` 2>&1`,
		`echo "== watches"`, `"$CODEXHOST_CLI_PATH" thread watches 2>&1`,
		`echo "== env"`, `env`,
	}, "\n")
	attacker := h.delegate(bot, "--harness", "sh", "--task", script)
	answer := h.waitCompleted(bot, attacker.Thread.ID).Result.Text
	got := sections(answer)
	if strings.Contains(got["env"], "sk-e2e-model-key") || !strings.Contains(got["env"], "PATH=") {
		t.Errorf("the external harness's environment holds the model key (or none was printed):\n%s", got["env"])
	}
	if strings.Contains(got[""], "READ-A-TOKEN") {
		t.Error("the harness read an operator token from the home")
	}
	for _, name := range []string{"operator", "operator-thread-list", "stolen-client-token", "escaped"} {
		if code := cliCode(t, got[name]); code != "PERMISSION_DENIED" {
			t.Errorf("%s from below the runtime: got %q, want PERMISSION_DENIED:\n%s", name, code, got[name])
		}
	}
	var who struct{ Kind, Client string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(got["whoami"])), &who); err != nil || who.Kind != "runtime" || who.Client != "" {
		t.Errorf("whoami with the thread's own token: %q (%v), want an agent", got["whoami"], err)
	}
	var list listResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(got["list"])), &list); err != nil {
		t.Fatalf("thread list from the agent: %v\n%s", err, got["list"])
	}
	for _, th := range list.Threads {
		if th.ID == victimThread {
			t.Errorf("the agent listed another principal's thread %s", victimThread)
		}
	}
	for _, name := range []string{"cancel-victim", "send-victim", "parent-victim", "notify-victim"} {
		if code := cliCode(t, got[name]); code != "PERMISSION_DENIED" {
			t.Errorf("%s: got %q, want PERMISSION_DENIED:\n%s", name, code, got[name])
		}
	}
	if strings.Contains(got["watches"], victimThread) {
		t.Errorf("the agent's watch list shows another principal's watch:\n%s", got["watches"])
	}
	if st := h.read(victim, victimThread).Thread.Status; st != "running" {
		t.Errorf("the victim's thread is %s, want it still running", st)
	}
}

// A client borrows no other principal: naming another client's thread as the parent of a
// delegation, or as the target of a watch's notification, is refused like sending to it;
// so is a native session codexhost did not start. The operator may.
func TestNoSkeletonKeyBorrowingAPrincipal(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{"sh": scriptHarness, "leaf": echoHarness}})
	bot1, bot2 := h.addClient("bot1"), h.addClient("bot2")
	victim := h.delegate(bot1, "--harness", "sh", "--task", "sleep 60").Thread.ID
	own := h.delegate(bot2, "--harness", "leaf", "--task", "mine").Thread.ID
	h.waitCompleted(bot2, own)

	attempts := map[string][]string{
		"parent":       {"delegate", "start", "--harness", "leaf", "--task", "x", "--parent-thread", victim},
		"parent-watch": {"delegate", "start", "--harness", "leaf", "--task", "y", "--parent-thread", victim, "--watch", "true"},
		"notify":       {"thread", "watch", own, "--notify", victim},
	}
	for name, args := range attempts {
		r := h.asClient(bot2, args...)
		if r.code == 0 || r.failure(t).Code != "PERMISSION_DENIED" {
			t.Errorf("%s as bot2 on bot1's thread: %s", name, r)
		}
	}
	if ids := h.listIDs(bot1, "--parent", victim); len(ids) != 0 {
		t.Errorf("bot1's thread got children %v from bot2", ids)
	}
	// bot1 itself may.
	if r := h.asClient(bot1, "delegate", "start", "--harness", "leaf", "--task", "z", "--parent-thread", victim); r.code != 0 {
		t.Errorf("bot1 delegating from its own thread: %s", r)
	}
}

// A native thread's tool shell sees neither the model key the App Server holds nor any
// variable that looks like a secret; it gets its own thread's token, and the runtime takes a
// connection with it for that thread's agent.
func TestNoSkeletonKeyNativeToolShellHasNoSecrets(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{sandbox: "danger-full-access", harnesses: map[string][]string{"leaf": echoHarness},
		env:    []string{"OPENAI_API_KEY=sk-model-key-secret", "PROVIDER_SECRET=provider-secret"},
		config: "[appserver]\nenv_passthrough = [\"PROVIDER_SECRET\"]\n"})
	tok := h.addClient("ci")
	native, out := nativeToolCall(t, h, tok, `env; "$CODEXHOST_CLI_PATH" client whoami 2>&1`)
	all := strings.Join(out.lines, "\n")
	for _, secret := range []string{"sk-model-key-secret", "provider-secret"} {
		if strings.Contains(all, secret) {
			t.Errorf("the tool shell sees %q:\n%s", secret, all)
		}
	}
	var who struct{ Kind, Client string }
	out.json(t, `{"kind"`, &who)
	if who.Kind != "runtime" {
		t.Errorf("the tool shell connected as %+v, want an agent", who)
	}
	_ = native
	// The App Server itself does hold them: the check above is not vacuous.
	if !strings.Contains(all, "CODEX_THREAD_ID=") {
		t.Fatalf("no environment printed:\n%s", all)
	}
}

// The commands of a native thread codexhost starts cannot read the codexhost home nor Codex's
// credentials and sessions, in either sandbox mode that confines them; the project and the
// rest of the disk stay readable.
func TestNoSkeletonKeyNativeThreadCannotReadTheHomes(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []string{"", "workspace-write+network"} {
		t.Run("sandbox="+sandbox, func(t *testing.T) {
			h := startHost(t, hostConfig{sandbox: sandbox})
			tok := h.addClient("ci")
			secretFile := filepath.Join(h.home, "planted-secret")
			authFile := filepath.Join(h.codexHome, "auth.json")
			for path, text := range map[string]string{secretFile: "HOME-SECRET-1", authFile: `{"OPENAI_API_KEY":"AUTH-SECRET-2"}`} {
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(h.work, "project-file"), []byte("PROJECT-OK"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, out := nativeToolCall(t, h, tok, `cat '`+secretFile+`' '`+authFile+`' '`+h.home+`/config.toml' project-file 2>&1; ls '`+h.codexHome+`/sessions' 2>&1`)
			all := strings.Join(out.lines, "\n")
			for _, secret := range []string{"HOME-SECRET-1", "AUTH-SECRET-2", "token_sha256", "rollout-"} {
				if strings.Contains(all, secret) {
					t.Errorf("the thread's command read %q:\n%s", secret, all)
				}
			}
			if !strings.Contains(all, "PROJECT-OK") {
				t.Errorf("the thread could not read its own project:\n%s", all)
			}
		})
	}
}
