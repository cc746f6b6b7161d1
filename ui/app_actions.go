package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Actions are typed values; the dialogs hand them back and perform turns them into runtime
// calls. Each calls the same method as the subcommand it mirrors.
type action interface{ label(c *common) string }

// Each action names the subcommand that does the same.
type (
	// archive T --confirm-no-other-runner
	archiveAction struct{ ref threadRef }
	// thread cancel T
	cancelAction struct{ ref threadRef }
	// thread send T --message TEXT
	sendAction struct {
		ref  threadRef
		text string
	}
	// delegate start
	delegateAction struct{ p api.DelegateStartParams }
	// thread watch T
	watchAction struct {
		ref threadRef
		p   api.ThreadWatchParams
	}
	// transcript T / thread read T
	openAction struct{ id string }
	// continue T --host H
	continueAction struct{ ref threadRef }
)

func (a archiveAction) label(c *common) string  { return "archiving " + c.name(a.ref) }
func (a cancelAction) label(c *common) string   { return "cancelling the turn of " + c.name(a.ref) }
func (a sendAction) label(c *common) string     { return "sending to " + c.name(a.ref) }
func (a delegateAction) label(*common) string   { return "delegating to " + a.p.Harness }
func (a watchAction) label(c *common) string    { return "watching " + c.name(a.ref) }
func (a openAction) label(c *common) string     { return "opening " + c.short(a.id) }
func (a continueAction) label(c *common) string { return "continuing " + c.name(a.ref) }

// Results of the actions; each applies itself to the root.
type (
	archiveCheckedMsg struct {
		job  int
		ref  threadRef
		info *model.ThreadInfo
		err  error
	}
	archiveDoneMsg struct {
		job int
		ref threadRef
		res api.CatalogArchiveResult
		err error
	}
	cancelDoneMsg struct {
		job int
		ref threadRef
		res api.ThreadCancelResult
		err error
	}
	sendDoneMsg struct {
		job int
		ref threadRef
		res api.ThreadSendResult
		err error
	}
	delegateDoneMsg struct {
		job    int
		parent string
		res    api.DelegateStartResult
		err    error
	}
	watchDoneMsg struct {
		job int
		ref threadRef
		res api.WatchResult
		err error
	}
	openResolvedMsg struct {
		job  int
		id   string
		info *model.ThreadInfo
		err  error
	}
	continueDoneMsg struct {
		job int
		ref threadRef
		res api.CatalogContinueResult
		err error
	}
	harnessesLoadedMsg struct {
		seq int
		res api.HarnessListResult
		err error
	}
	clientEventsMsg struct {
		initial bool
		cursor  string
		events  []model.ClientEvent
		err     error
	}
)

// perform runs an action as a command and shows it in the status bar while it runs.
func (a *App) perform(act action) tea.Cmd {
	job, tick := a.status.start(act.label(a.c))
	c := a.c
	var run tea.Cmd
	switch act := act.(type) {
	case archiveAction:
		p := api.CatalogArchiveParams{Thread: act.ref.ID, Host: act.ref.Host, ConfirmNoOtherRunner: true}
		run = func() tea.Msg {
			res, err := call(c, api.CatalogArchive, p)
			return archiveDoneMsg{job: job, ref: act.ref, res: res, err: err}
		}
	case cancelAction:
		run = func() tea.Msg {
			res, err := call(c, api.ThreadCancel, api.ThreadCancelParams{Thread: act.ref.ID})
			return cancelDoneMsg{job: job, ref: act.ref, res: res, err: err}
		}
	case sendAction:
		run = func() tea.Msg {
			res, err := call(c, api.ThreadSend, api.ThreadSendParams{Thread: act.ref.ID, Message: act.text})
			return sendDoneMsg{job: job, ref: act.ref, res: res, err: err}
		}
	case delegateAction:
		run = func() tea.Msg {
			res, err := call(c, api.DelegateStart, act.p)
			return delegateDoneMsg{job: job, parent: act.p.Caller.ParentThread, res: res, err: err}
		}
	case watchAction:
		run = func() tea.Msg {
			res, err := call(c, api.ThreadWatch, act.p)
			return watchDoneMsg{job: job, ref: act.ref, res: res, err: err}
		}
	case openAction:
		run = func() tea.Msg {
			res, err := call(c, api.ThreadRead, api.ThreadReadParams{Thread: act.id})
			msg := openResolvedMsg{job: job, id: act.id, err: err}
			if err == nil {
				msg.info = &res.Thread
			}
			return msg
		}
	case continueAction:
		p := api.CatalogContinueParams{Thread: act.ref.ID, Host: act.ref.Host}
		run = func() tea.Msg {
			res, err := call(c, api.CatalogContinue, p)
			return continueDoneMsg{job: job, ref: act.ref, res: res, err: err}
		}
	case quitAction:
		a.status.done(job)
		return tea.Quit
	case taskCancelAction, taskConfirmAction:
		run = a.performTask(job, act)
	default:
		a.status.done(job)
		return nil
	}
	return tea.Batch(tick, run)
}

// threadKey handles the keys that act on the focused pane's thread.
func (a *App) threadKey(k tea.KeyMsg) (tea.Cmd, bool) {
	t := a.c.keys.Thread
	if !key.Matches(k, t.Archive, t.Send, t.Delegate, t.Watch, t.Cancel) {
		return nil, false
	}
	ref, ok := a.panes[a.focus].Selected()
	if !ok {
		if key.Matches(k, t.Delegate) {
			return a.delegateForm(nil), true
		}
		return status(levelError, "select a thread first (fleet, transcript or lineage pane)"), true
	}
	switch {
	case key.Matches(k, t.Archive):
		return a.checkArchive(ref), true
	case key.Matches(k, t.Send):
		return a.sendForm(ref), true
	case key.Matches(k, t.Delegate):
		return a.delegateForm(&ref), true
	case key.Matches(k, t.Watch):
		if why := a.c.watchReason(ref); why != "" {
			return status(levelInfo, why), true
		}
		return a.watchForm(ref), true
	case key.Matches(k, t.Cancel):
		if why := a.c.cancelReason(ref); why != "" {
			return status(levelInfo, why), true
		}
		a.confirm.Show("Cancel the running turn?", []string{
			fmt.Sprintf("Interrupt the active turn of %s (%s)?", a.c.name(ref), statusWords(ref.Status, ref.Waiting)),
			"The turn ends as interrupted; the thread stays and takes new messages.",
		}, "cancel the turn", cancelAction{ref: ref}, true, false)
		return nil, true
	}
	return nil, false
}

// continueKey asks before continuing the session selected in the fleet or the transcript.
// Whether it already has a supervised thread is the runtime's to say, so the dialog explains
// both outcomes.
func (a *App) continueKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if !key.Matches(k, a.c.keys.Fleet.Continue) || (a.focus != paneFleet && a.focus != paneTranscript) {
		return nil, false
	}
	ref, ok := a.panes[a.focus].Selected()
	switch {
	case !ok:
		return status(levelError, "select a session first (fleet or transcript pane)"), true
	case a.c.continueReason(ref) != "":
		return status(levelError, a.c.continueReason(ref)), true
	}
	host := ref.Host
	if host == "" {
		host = "the default host"
	}
	if ref.node() {
		if caps, known := a.fleet.hostCapabilities(ref.Host); known && !slices.Contains(caps, api.CatalogCapContinue) {
			return status(levelError, fmt.Sprintf("continue: %s offers no continue now (the node must offer %s and this runtime allow it in gateway.nodes.commands.allow); its sessions stay readable",
				ref.Host, api.NodeCmdSessionResume)), true
		}
		lines := []string{
			fmt.Sprintf("Continue %s on %s (%s) as a supervised codexhost thread?", a.c.name(ref), host, statusWords(ref.Status, ref.Waiting)),
			"The supervised thread is bound to this exact thread on the node: nothing is forked or resumed now.",
			"Each message you send it runs one turn there (codex exec resume, under the node's own Codex configuration) and brings back the final text.",
			"Already has one: that supervised thread opens. Continuing a node's thread needs operator.admin.",
		}
		a.confirm.Show("Continue a node's session?", lines, "continue", continueAction{ref: ref}, false, false)
		return nil, true
	}
	lines := []string{
		fmt.Sprintf("Continue %s on %s (%s) as a supervised codexhost thread?", a.c.name(ref), host, statusWords(ref.Status, ref.Waiting)),
		"No supervised thread yet: a new branch is made that carries the session's visible history (its newest user and assistant messages). Your first message to it starts the branch's own Codex thread.",
		"Already has one: that supervised thread opens; nothing new is made.",
		"The session itself is never resumed or changed.",
	}
	if ref.Status == model.ThreadActive {
		lines = append(lines, "It is running a turn now: an active session gets no new branch, but one it already has still opens.")
	}
	a.confirm.Show("Continue session?", lines, "continue", continueAction{ref: ref}, false, false)
	return nil, true
}

// checkArchive reads the thread again before asking, so the dialog shows its current status.
// The dialog then opens from a reply, not from a key, and so ignores keys for a moment.
func (a *App) checkArchive(ref threadRef) tea.Cmd {
	if why := a.c.archiveReason(ref); why != "" {
		return status(levelError, why)
	}
	job, tick := a.status.start("checking " + a.c.name(ref))
	c := a.c
	return tea.Batch(tick, func() tea.Msg {
		res, err := call(c, api.ThreadRead, api.ThreadReadParams{Thread: ref.ID})
		msg := archiveCheckedMsg{job: job, ref: ref, err: err}
		if err == nil {
			msg.info = &res.Thread
		}
		return msg
	})
}

func (a *App) sendForm(ref threadRef) tea.Cmd {
	f := a.c.textField("message", "message", "", "what to tell the thread")
	note := fmt.Sprintf("Starts a turn on %s (%s). A thread that is running refuses it (THREAD_BUSY); nothing is queued.",
		a.c.name(ref), statusWords(ref.Status, ref.Waiting))
	return a.form.Show("Send a message", note, []*formField{f}, func(v map[string]string) (action, error) {
		if v["message"] == "" {
			return nil, errors.New("write a message first")
		}
		return sendAction{ref: ref, text: v["message"]}, nil
	})
}

func (a *App) delegateForm(parent *threadRef) tea.Cmd {
	c := a.c
	par, cwd := "", c.cwd
	if parent != nil {
		par = parent.ID
		if parent.Cwd != "" {
			cwd = parent.Cwd
		}
	}
	fields := []*formField{
		choiceField("harness", "harness"),
		c.textField("task", "task", "", "what the child thread should do"),
		c.textField("refs", "refs", "", "URIs of related material, separated by spaces (optional)"),
		c.textField("parent", "parent", par, "delegating thread (empty: you, as client "+c.client+")"),
		c.textField("cwd", "cwd", cwd, "working directory of the child"),
	}
	cmd := a.form.Show("Delegate", "Starts a child thread on a harness and records who delegated it.", fields,
		func(v map[string]string) (action, error) {
			switch {
			case v["harness"] == "":
				return nil, errors.New("pick a harness")
			case v["task"] == "":
				return nil, errors.New("write the task")
			}
			if v["parent"] != "" {
				if _, err := model.ParseThreadID(v["parent"]); err != nil {
					return nil, err
				}
			}
			p := api.DelegateStartParams{
				Caller:  api.CallerHint{ParentThread: v["parent"], Cwd: c.cwd},
				Harness: v["harness"], Task: v["task"], Refs: strings.Fields(v["refs"]), Cwd: v["cwd"],
			}
			return delegateAction{p: p}, nil
		})
	seq := a.form.seq
	load := func() tea.Msg {
		res, err := call(c, api.HarnessList, struct{}{})
		return harnessesLoadedMsg{seq: seq, res: res, err: err}
	}
	return tea.Batch(cmd, load)
}

func (a *App) watchForm(ref threadRef) tea.Cmd {
	c := a.c
	fields := []*formField{
		c.textField("notify", "notify", "", "client:"+c.client+" (you), or a thread id"),
		c.textField("timeout", "timeout", "", "how long to watch, e.g. 45m or 2h (default 30m)"),
	}
	note := fmt.Sprintf("Notifies once when %s stops: completed, failed, interrupted, or when the timeout passes.", a.c.name(ref))
	return a.form.Show("Watch a thread", note, fields, func(v map[string]string) (action, error) {
		p := api.ThreadWatchParams{Caller: api.CallerHint{Cwd: c.cwd}, Thread: ref.ID, Notify: v["notify"]}
		if v["timeout"] != "" {
			d, err := time.ParseDuration(v["timeout"])
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("timeout: give a duration such as 45m or 2h, not %q", v["timeout"])
			}
			p.TimeoutMs = d.Milliseconds()
		}
		return watchAction{ref: ref, p: p}, nil
	})
}

func (a *App) openForm() tea.Cmd {
	f := a.c.textField("thread", "thread", "", "id, short id as shown (019a2327…c7), codex://threads/<id>, or a title")
	return a.form.Show("Open a thread", "", []*formField{f}, func(v map[string]string) (action, error) {
		id, err := a.resolveThread(v["thread"])
		if err != nil {
			return nil, err
		}
		return openAction{id: id}, nil
	})
}
