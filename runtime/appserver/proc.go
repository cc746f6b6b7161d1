package appserver

import (
	"bufio"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/internal/procsup"
)

// serverUmask is the umask the App Server starts with: its session files, histories and logs
// are the user's alone, whatever umask the user's shell had.
const serverUmask = 0o077

// serverKillGrace is how long the supervisor has to end the App Server and its tool shells
// before the group is killed.
const serverKillGrace = 2 * time.Second

// startServer starts cmd under the process supervisor where the platform has one (a umask of
// 077, and every tool shell, even one that called setsid, ends with the App Server), else in
// a process group of its own. It returns the App Server's own pid, which is the supervisor's
// child when supervised.
func startServer(cmd *exec.Cmd, wait time.Duration) (pid int, supervised bool, err error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // replaced by Wrap when supervised
	supervised, report, err := procsup.Wrap(cmd, procsup.Options{Umask: procsup.Umask(serverUmask), ReportPid: true})
	if err != nil {
		return 0, false, err
	}
	err = cmd.Start()
	procsup.CloseChildEnds(cmd)
	if !supervised || err != nil {
		if report != nil {
			report.Close()
		}
		if err != nil {
			return 0, false, err
		}
		return cmd.Process.Pid, false, nil
	}
	defer report.Close()
	_ = report.SetReadDeadline(time.Now().Add(wait))
	line, rerr := bufio.NewReader(report).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if rerr != nil || perr != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return 0, false, fmt.Errorf("the supervisor did not start the App Server: %v", rerr)
	}
	return pid, true, nil
}

// killGroup ends the App Server and all below it: a supervised one through its supervisor
// (a SIGKILL of the group would kill the supervisor before it could reach a tool shell that
// left the group), the group itself after the grace or at once otherwise.
func (p *process) killGroup() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.done:
		return // gone, and its pid may be another process's by now
	default:
	}
	pgid := p.cmd.Process.Pid
	if p.supervised && procsup.Stop(pgid) == nil {
		go func() {
			select {
			case <-p.done:
			case <-time.After(serverKillGrace):
			}
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}()
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
