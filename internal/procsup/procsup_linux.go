package procsup

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// deathSignal is the supervisor's parent-death signal; stopSignal asks it to kill the command
// and everything below it now. Both must be catchable.
const (
	deathSignal = syscall.SIGUSR1
	stopSignal  = syscall.SIGUSR2
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

func init() {
	if len(os.Args) > 0 && os.Args[0] == Arg0 {
		os.Exit(run(os.Args[1:]))
	}
}

// Wrap rewrites cmd (built by exec.Command, not started) to run under the supervisor, in a
// process group of its own that the command shares. It reports false, and leaves cmd as it
// is, for a command that could not be resolved (Start reports that as before). With
// o.ReportPid the returned file is the read end of the pid pipe.
func Wrap(cmd *exec.Cmd, o Options) (bool, *os.File, error) {
	if cmd.Err != nil || cmd.Path == "" {
		return false, nil, nil
	}
	if _, err := exec.LookPath(cmd.Path); err != nil {
		return false, nil, nil
	}
	flags := []string{}
	if o.Umask != nil {
		flags = append(flags, "umask="+strconv.FormatInt(int64(*o.Umask), 8))
	}
	var report *os.File
	if o.ReportPid {
		r, w, err := os.Pipe()
		if err != nil {
			return false, nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, w)
		flags = append(flags, "report="+strconv.Itoa(2+len(cmd.ExtraFiles)))
		report = r
	}
	if len(flags) == 0 {
		flags = []string{"-"}
	}
	args := append([]string{Arg0, strconv.Itoa(os.Getpid()), strings.Join(flags, ","), cmd.Path}, cmd.Args...)
	// /proc/self/exe is this binary even if its file was replaced or removed since it started.
	cmd.Path, cmd.Args = "/proc/self/exe", args
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSignal}
	return true, report, nil
}

// CloseChildEnds closes, after Start, the write end of the pid pipe that Wrap added.
func CloseChildEnds(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
}

// Stop asks the supervisor pid to kill the command and every descendant now; it exits once
// they are gone.
func Stop(pid int) error { return syscall.Kill(pid, stopSignal) }

type flags struct {
	umask  int
	report int
}

func parseFlags(s string) (flags, error) {
	f := flags{umask: -1, report: -1}
	if s == "-" {
		return f, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		var n int64
		switch k {
		case "umask":
			n, err = strconv.ParseInt(v, 8, 32)
			f.umask = int(n)
		case "report":
			n, err = strconv.ParseInt(v, 10, 32)
			f.report = int(n)
		default:
			err = fmt.Errorf("unknown flag %q", k)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// run is the supervisor: args are the starting process's pid, the flags, the command's path
// and its argv. It returns the command's exit status, or dies of the signal that ended it.
func run(args []string) int {
	if len(args) < 4 {
		fmt.Fprintln(os.Stderr, "codexhost supervisor: missing arguments")
		return 2
	}
	parent, err := strconv.Atoi(args[0])
	fl, ferr := parseFlags(args[1])
	if err != nil || ferr != nil {
		fmt.Fprintln(os.Stderr, "codexhost supervisor: bad arguments")
		return 2
	}
	// Orphans below us come to us, not to PID 1: nothing escapes by setsid or a double fork.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		fmt.Fprintf(os.Stderr, "codexhost supervisor: subreaper: %v\n", e)
	}
	s := &supervisor{}
	signal.Notify(s.signals(), deathSignal, stopSignal, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if os.Getppid() != parent {
		return 1 // the starting process died before the death signal was armed
	}
	if fl.umask >= 0 {
		syscall.Umask(fl.umask) // this process writes no file; the command inherits it
	}
	pid, err := s.start(args[2], args[3:])
	if fl.report >= 0 {
		f := os.NewFile(uintptr(fl.report), "pid")
		if err == nil {
			fmt.Fprintf(f, "%d\n", pid)
		}
		f.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "codexhost supervisor: %v\n", err)
		return 127
	}
	// The command has its own copies of the standard files; ours would keep a pipe open.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = syscall.Dup2(int(null.Fd()), fd)
		}
		null.Close()
	}
	return s.loop()
}
