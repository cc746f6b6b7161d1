// Command codexhost hosts coding-agent threads: a terminal app and the headless commands that
// mirror every one of its actions.
package main

import (
	"os"

	"github.com/codexhost/codexhost/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
