package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
)

// extProc is a started turn process and the parent's ends of its pipes.
type extProc struct {
	cmd  *exec.Cmd
	pgid int
	// supervised: the process is the supervisor of the command (see superviseTurn).
	supervised bool
	stdin      *os.File
	stdout     *os.File
	stderr     *os.File // nil when stderr goes to /dev/null
}

// startProcess starts the command in a process group of its own, so that a stop reaches
// everything it spawned. Pipes are plain files: exec then starts no copying goroutines and
// Wait returns when the process exits, even if something it left behind holds a pipe open.
func (x *External) startProcess(id model.ThreadID, cwd, effort string) (*extProc, error) {
	cmd := exec.Command(x.cfg.Command[0], x.cfg.Command[1:]...)
	cmd.Dir = cwd
	cmd.Env = ThreadEnv(x.opts.BaseEnv, x.opts.Conn, id, x.cfg.Env)
	if effort != "" {
		// ThreadEnv has no CODEXHOST_EFFORT (it is reserved), so appending cannot duplicate it.
		cmd.Env = append(cmd.Env, EnvEffort+"="+effort)
	}
	cmd.SysProcAttr = extSysProcAttr()
	supervised := superviseTurn(cmd) // all the turn starts ends with it, or with the runtime

	// child holds the ends the process gets, parent the ends the runtime keeps.
	var parent, child []*os.File
	closeAll := func() {
		for _, f := range append(parent, child...) {
			f.Close()
		}
	}
	p := &extProc{cmd: cmd, supervised: supervised}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	child, parent = append(child, inR), append(parent, inW)
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	child, parent = append(child, outW), append(parent, outR)
	cmd.Stdin, cmd.Stdout = inR, outW
	p.stdin, p.stdout = inW, outR
	// Stderr is always read: it may carry the turn's usage line (external_usage.go).
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	child, parent = append(child, errW), append(parent, errR)
	cmd.Stderr, p.stderr = errW, errR
	err = cmd.Start()
	// The process has its own copies; ours would keep its output from ever reaching EOF.
	for _, f := range child {
		f.Close()
	}
	if err != nil {
		for _, f := range parent {
			f.Close()
		}
		return nil, err
	}
	p.pgid = cmd.Process.Pid
	return p, nil
}

// abandon kills a process whose turn could not be recorded.
func (p *extProc) abandon() {
	waitc := make(chan error, 1)
	go func() { waitc <- p.cmd.Wait() }()
	_ = killTurn(p, waitc, extKillGrace)
	p.stdin.Close()
	p.stdout.Close()
	if p.stderr != nil {
		p.stderr.Close()
	}
}

// extCapture keeps the first max bytes of a stream and counts the rest.
type extCapture struct {
	data    []byte
	dropped int64
}

func extReadHead(r io.Reader, limit int) extCapture {
	var c extCapture
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			keep := min(n, limit-len(c.data))
			c.data = append(c.data, buf[:keep]...)
			c.dropped += int64(n - keep)
		}
		if err != nil {
			return c
		}
	}
}

// extReadTail keeps the last limit bytes of a stream.
// text is the assistant message: valid UTF-8, cut on a character boundary, with a marker when
// output was dropped.
func (c extCapture) text() string {
	data := c.data
	dropped := c.dropped
	if dropped > 0 {
		// Back up to the start of a character so the cut does not leave half of one.
		cut := len(data)
		for i := 0; i < utf8.UTFMax && cut-i > 0; i++ {
			if utf8.RuneStart(data[cut-i-1]) {
				if !utf8.FullRune(data[cut-i-1:]) {
					cut = cut - i - 1
				}
				break
			}
		}
		dropped += int64(len(data) - cut)
		data = data[:cut]
	}
	s := strings.ToValidUTF8(string(data), "\uFFFD")
	if dropped > 0 {
		s += fmt.Sprintf(extTruncatedMarker, dropped)
	}
	return s
}

// runTurn feeds the prompt, waits for the process or a stop, and records the turn's end.
func (x *External) runTurn(id model.ThreadID, th *extThread, run *extRun, p *extProc, prompt string) {
	defer x.runs.Done()
	defer close(run.done)

	go func() {
		// A process that never reads stdin leaves this blocked until stdin is closed below.
		_, _ = io.WriteString(p.stdin, prompt)
		p.stdin.Close()
	}()
	outc := make(chan extCapture, 1)
	go func() { outc <- extReadHead(p.stdout, extMaxOutput) }()
	errc := make(chan extStderr, 1)
	go func() { errc <- extReadStderr(p.stderr, extStderrTail) }()
	waitc := make(chan error, 1)
	go func() { waitc <- p.cmd.Wait() }()

	var timeout <-chan time.Time
	if x.cfg.Timeout > 0 {
		t := time.NewTimer(x.cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var waitErr error
	reason := ""
	select {
	case waitErr = <-waitc:
	case <-run.stop:
		x.mu.Lock()
		reason = run.reason
		x.mu.Unlock()
		waitErr = x.terminate(p, waitc)
	case <-timeout:
		reason = extStopTimeout
		waitErr = x.terminate(p, waitc)
	}
	// Whatever the process left running in its group would outlive the turn with the runtime's
	// token. A group id is not reused while a member lives; with none left this signal finds
	// nothing, barring a pid reused in the instant since Wait.
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	p.stdin.Close()
	out := extCollect(outc, p.stdout)
	stderr := extCollect(errc, p.stderr)

	status, errText := x.outcome(reason, waitErr)
	at := x.now()
	var entries []transcriptEntry
	if text := out.text(); text != "" {
		entries = append(entries, transcriptEntry{V: transcriptVersion, Type: transcriptMessage, TurnID: run.turnID,
			Role: model.RoleAssistant, Text: text, At: at})
	}
	entries = append(entries, transcriptEntry{V: transcriptVersion, Type: transcriptTurnEnded, TurnID: run.turnID,
		Status: status, Error: errText, At: at})

	x.mu.Lock()
	size := th.st.size
	x.mu.Unlock()
	// The thread stays reserved until here, so no other writer touches the file meanwhile.
	n, werr := transcriptAppend(th.path, size, entries, true)
	// Logged before the turn is seen to end, so whoever waits for the end finds the log.
	x.logTurn(id, run.turnID, status, errText, stderr.tail, werr)

	x.mu.Lock()
	for _, e := range entries {
		th.st.apply(e)
	}
	if werr == nil {
		th.st.size = n
	}
	th.run = nil
	x.queueLocked(Event{Thread: id, Status: model.ThreadIdle, TurnID: run.turnID, TurnStatus: status, At: at,
		Usage: stderr.usage.report(run.turnID)})
	x.mu.Unlock()
	x.flushEvents()
}

// extCollect waits for a pipe reader to reach EOF, and closes the pipe under it when a process
// outside the group keeps it open past the grace.
func extCollect[T any](c <-chan T, f *os.File) T {
	t := time.NewTimer(extPipeGrace)
	defer t.Stop()
	select {
	case v := <-c:
		if f != nil {
			f.Close()
		}
		return v
	case <-t.C:
		if f != nil {
			f.Close()
		}
		return <-c
	}
}

// terminate asks the process group to stop, then kills it after the grace. It returns the
// result of Wait.
func (x *External) terminate(p *extProc, waitc <-chan error) error {
	_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
	t := time.NewTimer(x.killGrace)
	defer t.Stop()
	select {
	case err := <-waitc:
		return err
	case <-t.C:
	}
	return killTurn(p, waitc, x.killGrace)
}

// outcome maps how the process ended to a turn status and a short error. The error never
// quotes the process's output: it is shown to agents and kept in the transcript.
func (x *External) outcome(reason string, waitErr error) (status, errText string) {
	switch reason {
	case extStopCancel:
		return model.TurnInterrupted, ""
	case extStopClose:
		return model.TurnInterrupted, "runtime shut down during the turn"
	case extStopTimeout:
		return model.TurnFailed, "timed out after " + x.cfg.Timeout.String()
	}
	if waitErr == nil {
		return model.TurnCompleted, ""
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
				// Stopped from outside (a user, the OOM killer): the turn did not get to finish.
				return model.TurnInterrupted, "signal: " + ws.Signal().String()
			}
			return model.TurnFailed, "signal: " + ws.Signal().String()
		}
		return model.TurnFailed, fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	return model.TurnFailed, waitErr.Error()
}

func (x *External) logTurn(id model.ThreadID, turnID, status, errText string, stderr []byte, werr error) {
	l := x.opts.Logger
	if l == nil {
		return
	}
	if werr != nil {
		l.Error("external turn end not recorded", "harness", x.cfg.Name, "thread", string(id), "turn", turnID, "err", werr)
	}
	if status == model.TurnCompleted {
		l.Debug("external turn completed", "harness", x.cfg.Name, "thread", string(id), "turn", turnID)
		return
	}
	l.Warn("external turn ended", "harness", x.cfg.Name, "thread", string(id), "turn", turnID,
		"status", status, "error", errText, "stderr", strings.ToValidUTF8(string(stderr), "\uFFFD"))
}
