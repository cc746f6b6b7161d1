package cli

import (
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// Ids in the examples: a thread, a handoff, a task (a thread too).
const (
	exThread  = "01a23330-854a-7562-acc2-04f5e001f216"
	exHandoff = "handoff_01a2333a-9c10-7d44-8b1a-3f2d5e6a7b8c" // "handoff_" and a UUID, as handoff create makes them
	exTask    = "01a2333b-0f1e-7c44-9a1b-3f2d5e6a7b8c"
)

// examples are the Examples section of each command's help, by command path below the root.
// Each line is a command as it runs from a shell; a test parses every one against the tree.
// Built on first use: a package-level map or regexp is built by every process at start.
var examples = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"":                         {"codexhost                      # the terminal app", "codexhost --theme light --no-color"},
		"approvals":                {"codexhost approvals", "codexhost approvals --pending --json --client-token \"$TOKEN\""},
		"approve":                  {"codexhost approve ap-1796205600-1 --decision accept", "codexhost approve ap-1796205600-1 --decision decline --fence 2 --json"},
		"archive":                  {"codexhost archive " + exThread + " --confirm-no-other-runner", "codexhost archive codex://threads/" + exThread + " --host gateway:local --confirm-no-other-runner --json"},
		"backup":                   {"codexhost backup ~/codexhost-backup.db", "codexhost backup /tmp/home.backup --json"},
		"client":                   {"codexhost client add ci-bot --scope operator.read", "codexhost client whoami --client-token \"$TOKEN\""},
		"client add":               {"codexhost client add ci-bot", "codexhost client add dashboard --scope operator.read --allow-raw-transcripts", "codexhost client add steward --scope operator.write --allow-write-controls --text"},
		"client events":            {"codexhost client events --client-token \"$TOKEN\"", "codexhost client events --follow --after 42 --client-token \"$TOKEN\"", "codexhost client events --follow --timeout-ms 60000"},
		"client whoami":            {"codexhost client whoami --client-token \"$TOKEN\""},
		"codex":                    {"codexhost codex status", "codexhost codex install"},
		"codex status":             {"codexhost codex status", "codexhost codex status --json"},
		"codex install":            {"codexhost codex install", "codexhost codex install --json"},
		"compat":                   {"codexhost compat endpoint-probe", "codexhost compat sessions-list --include-stored"},
		"compat endpoint-probe":    {"codexhost compat endpoint-probe", "codexhost compat endpoint-probe --host gateway:local"},
		"compat session-interrupt": {"codexhost compat session-interrupt " + exThread, "codexhost compat session-interrupt " + exThread + " --expected-turn-id 01a23331-0000-7000-8000-000000000001"},
		"compat session-read":      {"codexhost compat session-read " + exThread, "codexhost compat session-read " + exThread + " --host gateway:local"},
		"compat session-send":      {"codexhost compat session-send " + exThread + " --message 'also run the linter'", "codexhost compat session-send " + exThread + " --mode steer --message 'stop after the tests'"},
		"compat sessions-list":     {"codexhost compat sessions-list", "codexhost compat sessions-list --include-stored --max-stored-sessions 50"},
		"completion":               {"codexhost completion bash > ~/.local/share/bash-completion/completions/codexhost", "codexhost completion zsh > \"${fpath[1]}/_codexhost\""},
		"completion bash":          {"codexhost completion bash > ~/.local/share/bash-completion/completions/codexhost"},
		"completion fish":          {"codexhost completion fish > ~/.config/fish/completions/codexhost.fish"},
		"completion powershell":    {"codexhost completion powershell > codexhost.ps1"},
		"completion zsh":           {"codexhost completion zsh > \"${fpath[1]}/_codexhost\""},
		"continue":                 {"codexhost continue " + exThread, "codexhost continue codex://threads/" + exThread + " --json", "codexhost continue " + exThread + " --host node:laptop"},
		"delegate":                 {"codexhost delegate --help", "codexhost delegate start --harness codex --task 'write the migration'"},
		"delegate start":           {"codexhost delegate start --harness codex --task 'add tests for the parser'", "codexhost delegate start --harness claude --task 'review the diff' --watch true --format compact", "git diff | codexhost delegate start --harness codex --request-id review-42 --ref https://example.com/issue/42"},
		"doctor":                   {"codexhost doctor", "codexhost doctor --fix", "codexhost doctor --json"},
		"handoff":                  {"codexhost handoff list", "codexhost handoff create --file handoff.json"},
		"handoff create":           {"codexhost handoff create --file handoff.json", "codexhost handoff create --title 'Fix login' --objective 'make the login test pass' --project-path ~/src/app --constraint 'no new dependencies' --operation read --operation write --operation run_tests --risk medium --test-command 'go test ./...'"},
		"handoff list":             {"codexhost handoff list", "codexhost handoff list --limit 5 --sort risk", "codexhost handoff list --json"},
		"handoff show":             {"codexhost handoff show " + exHandoff, "codexhost handoff show " + exHandoff + " --json"},
		"harness":                  {"codexhost harness list", "codexhost harness inspect codex"},
		"harness inspect":          {"codexhost harness inspect codex", "codexhost harness inspect codex --cwd ~/src/app --refresh true"},
		"harness list":             {"codexhost harness list", "codexhost harness list --format compact"},
		"help":                     {"codexhost help sessions"},
		"hosts":                    {"codexhost hosts", "codexhost hosts --sort health", "codexhost hosts --json"},
		"lineage":                  {"codexhost lineage " + exThread, "codexhost lineage codex://threads/" + exThread + " --text --timeout-ms 60000"},
		"usage":                    {"codexhost usage", "codexhost usage --since 7d --by tree", "codexhost usage --since 2026-01-31 --by principal --json"},
		"man":                      {"codexhost man > codexhost.1 && man ./codexhost.1", "codexhost man | man -l -"},
		"markers":                  {"codexhost markers prune --dry-run", "codexhost markers prune"},
		"markers prune":            {"codexhost markers prune --dry-run", "codexhost markers prune", "codexhost markers prune --json"},
		"mcp":                      {"codexhost mcp", "codexhost mcp --client-token \"$TOKEN\"", "codexhost mcp --listen 127.0.0.1:8765"},
		"node":                     {"codexhost node allow laptop", "ssh -N -L 7788:127.0.0.1:7788 laptop & codexhost node pair laptop 127.0.0.1:7788 --token-stdin < token.txt"},
		"node allow":               {"codexhost node allow laptop", "codexhost node allow laptop --json"},
		"node pair":                {"ssh -N -L 7788:127.0.0.1:7788 laptop & codexhost node pair laptop 127.0.0.1:7788 --token-stdin < token.txt"},
		"restore":                  {"codexhost restore ~/codexhost-backup.db", "codexhost restore ~/codexhost-backup.db --replace"},
		"serve":                    {"codexhost serve", "codexhost serve --listen 127.0.0.1:7788", "codexhost serve --json"},
		"sessions":                 {"codexhost sessions", "codexhost sessions --search 'login bug' --sort title", "codexhost sessions --host gateway:local --limit 100 --json"},
		"skill":                    {"codexhost skill status", "codexhost skill install"},
		"skill install":            {"codexhost skill install", "codexhost skill install --json"},
		"skill status":             {"codexhost skill status", "codexhost skill status --json"},
		"skill uninstall":          {"codexhost skill uninstall"},
		"task":                     {"codexhost task status", "codexhost task start --handoff " + exHandoff},
		"task cancel":              {"codexhost task cancel " + exTask + " --confirm"},
		"task confirm":             {"codexhost task confirm " + exTask},
		"task result":              {"codexhost task result " + exTask, "codexhost task result " + exTask + " --include-diff --include-log --max-text-bytes 4000"},
		"task start":               {"codexhost task start --handoff " + exHandoff, "codexhost task start --task 'update the changelog' --project-path ~/src/app --timeout-ms 600000", "codexhost task start --handoff " + exHandoff + " --confirm-high-risk --json"},
		"task status":              {"codexhost task status", "codexhost task status --sort created --limit 50", "codexhost task status " + exTask + " --json"},
		"thread":                   {"codexhost thread list", "codexhost thread read " + exThread + " --operator"},
		"thread cancel":            {"codexhost thread cancel " + exThread, "codexhost thread cancel " + exThread + " --operator"},
		"thread list":              {"codexhost thread list", "codexhost thread list --all-cwd --sort updated-desc --limit 50", "codexhost thread list --operator --all-cwd --format compact"},
		"thread markers":           {"codexhost thread markers " + exThread, "codexhost thread markers " + exThread + " --text"},
		"thread read":              {"codexhost thread read " + exThread, "codexhost thread read " + exThread + " --view messages --limit 50", "codexhost thread read codex://threads/" + exThread + " --operator"},
		"thread send":              {"codexhost thread send " + exThread + " --message 'now add the docs'", "echo 'try again with -race' | codexhost thread send " + exThread, "codexhost thread send " + exThread + " --operator --message 'continue'"},
		"thread wait":              {"codexhost thread wait " + exThread, "codexhost thread wait " + exThread + " --timeout-ms 600000 --format compact"},
		"thread watch":             {"codexhost thread watch " + exThread, "codexhost thread watch " + exThread + " --notify client:ci-bot --timeout-ms 3600000"},
		"thread watches":           {"codexhost thread watches", "codexhost thread watches --operator"},
		"transcript":               {"codexhost transcript " + exThread, "codexhost transcript " + exThread + " --host node:laptop --json"},
		"version":                  {"codexhost version"},
	}
})

// setExamples puts each command's examples into its help.
func setExamples(root *cobra.Command) {
	walk(root, func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), root.Name()), " ")
		if ex, ok := examples()[path]; ok {
			c.Example = "  " + strings.Join(ex, "\n  ")
		}
	})
}
