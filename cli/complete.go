package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Shell completion of ids, answered by the runtime that holds the home. A completion never
// starts a runtime (nor, with it, an App Server), never creates the home, and says
// nothing when no runtime answers quickly: the shell then offers no candidates.

// completionTimeout bounds a completion: the shell waits for it while the person types.
const completionTimeout = 2 * time.Second

// A completer lists candidates ("value\tdescription") from the runtime.
type completer func(ctx context.Context, c *api.Client, cmd *cobra.Command) []string

// Which commands complete what: thread ids as the argument, and ids of flags.
var (
	threadArgCommands  = []string{"thread read", "thread wait", "thread send", "thread cancel", "thread watch", "thread markers", "lineage"}
	sessionArgCommands = []string{"continue", "transcript", "archive"}
	// Pairs, not a map: a slice of constants is laid out at build time, a map is built by
	// every process at start.
	threadFlags = [][2]string{{"thread watch", "notify"}, {"thread list", "parent"}, {"delegate start", "parent-thread"}}
)

// registerCompletions wires the completers into the tree.
func registerCompletions(root *cobra.Command) {
	for _, path := range threadArgCommands {
		if c := findCommand(root, path); c != nil {
			c.ValidArgsFunction = firstArg(completeThreads)
		}
	}
	for _, path := range sessionArgCommands {
		if c := findCommand(root, path); c != nil {
			c.ValidArgsFunction = firstArg(completeSessions)
		}
	}
	for _, pf := range threadFlags {
		if c := findCommand(root, pf[0]); c != nil {
			_ = c.RegisterFlagCompletionFunc(pf[1], fromRuntime(completeThreads))
		}
	}
	if c := findCommand(root, "harness inspect"); c != nil {
		c.ValidArgsFunction = firstArg(completeHarnesses)
	}
	if c := findCommand(root, "delegate start"); c != nil {
		_ = c.RegisterFlagCompletionFunc("harness", fromRuntime(completeHarnesses))
	}
	walk(root, func(c *cobra.Command) {
		if c.Flags().Lookup("host") != nil {
			_ = c.RegisterFlagCompletionFunc("host", fromRuntime(completeHosts))
		}
	})
}

func findCommand(root *cobra.Command, path string) *cobra.Command {
	c, _, err := root.Find(strings.Fields(path))
	if err != nil || c == root {
		return nil
	}
	return c
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// firstArg completes the first argument only.
func firstArg(fn completer) cobra.CompletionFunc {
	from := fromRuntime(fn)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return from(cmd, args, toComplete)
	}
}

func fromRuntime(fn completer) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx, cancel := context.WithTimeout(cmdContext(cmd), completionTimeout)
		defer cancel()
		c := completionClient(ctx, cmd)
		if c == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer c.Close()
		var out []cobra.Completion
		for _, cand := range fn(ctx, c, cmd) {
			if strings.HasPrefix(cand, toComplete) {
				out = append(out, cand)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionClient connects as the command would, without side effects: the host parameters
// inside a harness, a client token, or the home's socket as its operator. nil when
// none of them reaches a runtime.
func completionClient(ctx context.Context, cmd *cobra.Command) *api.Client {
	conn, err := resolveConnection(ctx, flagValue(cmd, "client-token"), flagValue(cmd, "endpoint"))
	if err != nil {
		return nil
	}
	c, err := dial(ctx, conn.Endpoint, conn.Token)
	if err != nil {
		return nil
	}
	return c
}

func flagValue(cmd *cobra.Command, name string) string {
	if f := cmd.Flag(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// candidate is "value\tdescription", the description cut to what a menu shows.
func candidate(value string, desc ...string) string {
	d := strings.Join(nonEmpty(desc), " · ")
	if r := []rune(d); len(r) > 60 {
		d = string(r[:59]) + "…"
	}
	if d == "" {
		return value
	}
	return value + "\t" + strings.NewReplacer("\t", " ", "\n", " ").Replace(d)
}

func nonEmpty(s []string) []string {
	out := s[:0:0]
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

func completeThreads(ctx context.Context, c *api.Client, _ *cobra.Command) []string {
	res, err := api.ThreadList.Call(ctx, c, api.ThreadListParams{AnyCwd: true, Limit: 100, Sort: "recency-desc"})
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(res.Threads))
	for _, t := range res.Threads {
		out = append(out, candidate(t.ID, t.Harness, t.RunStatus, t.Title))
	}
	return out
}

func completeSessions(ctx context.Context, c *api.Client, cmd *cobra.Command) []string {
	res, err := api.CatalogSessions.Call(ctx, c, api.CatalogSessionsParams{Host: flagValue(cmd, "host"), Limit: 50})
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range res.Hosts {
		for _, s := range h.Sessions {
			out = append(out, sessionCandidate(h.Host, s))
		}
	}
	return out
}

// sessionCandidate describes a session as the sessions table does: its state in the word
// people see (stored, not the App Server's notLoaded).
func sessionCandidate(host string, s api.CatalogSession) string {
	return candidate(s.ID, host, model.StatusWord(s.Status), s.Title)
}

func completeHosts(ctx context.Context, c *api.Client, _ *cobra.Command) []string {
	res, err := api.CatalogHosts.Call(ctx, c, struct{}{})
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(res.Hosts))
	for _, h := range res.Hosts {
		out = append(out, candidate(h.ID, h.Kind, h.Health.State))
	}
	return out
}

func completeHarnesses(ctx context.Context, c *api.Client, _ *cobra.Command) []string {
	res, err := api.HarnessList.Call(ctx, c, struct{}{})
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(res.Harnesses))
	for _, h := range res.Harnesses {
		out = append(out, candidate(h.Name, h.Kind))
	}
	return out
}
