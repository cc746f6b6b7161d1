// Command rpctee stands between a client and `codex app-server`: it runs the real binary
// (RPCTEE_REAL) with its own arguments, passes stdin and stdout through line by line, and
// appends to RPCTEE_LOG one line per message, "<unix µs> <dir> <first bytes>" (dir ">" for a
// request, "<" for an answer), plus "start" and "exit". bench/oneshot-phases.sh reads it to
// split a search into the time before the App Server starts, its paging and the time after.
// The runtime passes no unknown variable to the App Server, so the two are set by a wrapper
// script.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

func main() {
	log, err := os.OpenFile(os.Getenv("RPCTEE_LOG"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rpctee:", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	note := func(dir, line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(log, "%d %s %.80s\n", time.Now().UnixMicro(), dir, strings.TrimSpace(line))
	}
	note("start", "")
	cmd := exec.Command(os.Getenv("RPCTEE_REAL"), os.Args[1:]...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "rpctee:", err)
		os.Exit(1)
	}
	go pass(os.Stdin, in, ">", note, func() { in.Close() })
	pass(out, os.Stdout, "<", note, func() {})
	err = cmd.Wait()
	note("exit", "")
	if err != nil {
		os.Exit(1)
	}
}

func pass(r io.Reader, w io.Writer, dir string, note func(dir, line string), done func()) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		l, err := br.ReadString('\n')
		if l != "" {
			note(dir, l)
			io.WriteString(w, l)
		}
		if err != nil {
			done()
			return
		}
	}
}
