// Command codexhost hosts coding-agent threads: a terminal app and the headless commands that
// mirror every one of its actions.
package main

import (
	"os"

	"github.com/codexhost/codexhost/cli"
	// No command asks the terminal its colours while packages initialise (see quietterm).
	_ "github.com/codexhost/codexhost/internal/quietterm/released"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
