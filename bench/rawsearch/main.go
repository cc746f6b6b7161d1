// Command rawsearch is the baseline of a title search: a client of the App Server of its
// own, as any program could write one, that starts `codex app-server` on CODEX_HOME, pages
// thread/list to the end and prints the threads whose name contains the search text.
//
// Usage: rawsearch [-statedb=true] [-codex BIN] TEXT
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/codexhost/codexhost/runtime/appserver"
)

type thread struct {
	ID   string  `json:"id"`
	Name *string `json:"name"`
}

func main() {
	statedb := flag.Bool("statedb", true, "list with useStateDbOnly (the fast list; false reads rollout files)")
	bin := flag.String("codex", os.Getenv("CODEXHOST_CODEX_BIN"), "codex binary")
	flag.Parse()
	if flag.NArg() != 1 || *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: rawsearch [-statedb=BOOL] [-codex BIN] TEXT")
		os.Exit(2)
	}
	needle := strings.ToLower(flag.Arg(0))
	ctx := context.Background()
	c, err := appserver.Start(ctx, appserver.Config{Bin: *bin, Env: os.Environ(), Dir: os.TempDir()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawsearch:", err)
		os.Exit(1)
	}
	defer c.Close()
	pager := appserver.NewThreadPager[thread](c, appserver.ThreadListParams{Limit: 100, UseStateDBOnly: *statedb})
	n := 0
	for !pager.Done() {
		data, err := pager.Next(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rawsearch:", err)
			os.Exit(1)
		}
		for _, t := range data {
			if t.Name != nil && strings.Contains(strings.ToLower(*t.Name), needle) {
				fmt.Println(t.ID)
				n++
			}
		}
	}
	fmt.Fprintf(os.Stderr, "%d matches in %d pages\n", n, pager.Pages())
}
