package cli

import (
	"path/filepath"

	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
)

// keysError reports the problems of config.toml's [keys] once, each on its own line under a
// count, before the terminal app takes the screen.
func keysError(home string, err error) error {
	n := 1
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		n = len(j.Unwrap())
	}
	return model.Errorf(model.CodeInvalidArgument, "fix or remove these entries in "+filepath.Join(home, config.FileName),
		"config.toml [keys]: %s\n%v", table.Count(n, "problem"), err)
}
