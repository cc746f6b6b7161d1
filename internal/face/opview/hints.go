package opview

import (
	"regexp"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
)

// agentCommandHint is a command of the agent-facing thread or harness group named in a hint.
// Built on first use: a package-level map or regexp is built by every process at start.
var agentCommandHint = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`codexhost (?:thread|harness) [a-z]+[^`]*`") })

// OperatorHint is hint as the person at the keyboard can follow it: the runtime's hints name
// the thread and harness commands as agents run them, which from an operator's shell need --operator.
func OperatorHint(hint string) string {
	return agentCommandHint().ReplaceAllStringFunc(hint, func(cmd string) string {
		if strings.Contains(cmd, " --operator") {
			return cmd
		}
		return strings.TrimSuffix(cmd, "`") + " --operator`"
	})
}

// ForOperator is err with its hint made runnable by an operator; anything else is returned
// as it is.
func ForOperator(err error) error {
	me, ok := err.(*model.Error)
	if !ok || me == nil || !agentCommandHint().MatchString(me.Hint) {
		return err
	}
	c := *me
	c.Hint = OperatorHint(me.Hint)
	return &c
}
