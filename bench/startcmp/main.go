// Command startcmp compares how long commands take to start and finish, run in turn so that
// a busy machine slows each of them alike, and with -inittrace the package initialisation
// each one pays before main (the sum of GODEBUG=inittrace=1's clock column). It also gives
// each run's CPU time (user + system) and minor page faults from its rusage, which another
// load on the machine changes far less than the wall time: a large binary pays in faults for
// every page of it touched on the way to main.
//
// Usage: startcmp [-runs N] [-warmup N] [-inittrace] 'label=/path/to/bin arg…' …
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type command struct {
	label string
	argv  []string
	walls []time.Duration
	inits []float64 // ms
	cpus  []float64 // ms, user + system
	flts  []float64 // minor page faults

	lastCPU, lastFaults float64 // of the last run
}

func main() {
	runs := flag.Int("runs", 200, "timed runs of each command")
	warmup := flag.Int("warmup", 10, "untimed runs of each command first")
	inittrace := flag.Bool("inittrace", false, "also sum the package init time each run reports")
	flag.Parse()
	var cmds []*command
	for _, a := range flag.Args() {
		label, line, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(line) == "" {
			fmt.Fprintf(os.Stderr, "startcmp: %q is not label=command\n", a)
			os.Exit(2)
		}
		cmds = append(cmds, &command{label: label, argv: strings.Fields(line)})
	}
	for range *warmup {
		for _, c := range cmds {
			if _, _, err := c.run(false); err != nil {
				fmt.Fprintf(os.Stderr, "startcmp: %s: %v\n", c.label, err)
				os.Exit(1)
			}
		}
	}
	for range *runs {
		for _, c := range cmds {
			d, initMS, err := c.run(*inittrace)
			if err != nil {
				fmt.Fprintf(os.Stderr, "startcmp: %s: %v\n", c.label, err)
				os.Exit(1)
			}
			c.walls = append(c.walls, d)
			c.inits = append(c.inits, initMS)
			c.cpus = append(c.cpus, c.lastCPU)
			c.flts = append(c.flts, c.lastFaults)
		}
	}
	for _, c := range cmds {
		ms := make([]float64, len(c.walls))
		for i, d := range c.walls {
			ms[i] = float64(d.Microseconds()) / 1000
		}
		fmt.Printf("%-14s wall %s   cpu median %6.2f ms   faults median %5.0f", c.label, summary(ms), median(c.cpus), median(c.flts))
		if *inittrace {
			fmt.Printf("   init %s", summary(c.inits))
		}
		fmt.Println()
	}
}

// run runs the command once, its output discarded; with trace, GODEBUG=inittrace=1 is set
// (on every run alike, so the walls stay comparable) and the init clock is summed.
func (c *command) run(trace bool) (time.Duration, float64, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if trace {
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	}
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s", err, stderr.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.lastCPU = float64(time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Microseconds()) / 1000
		c.lastFaults = float64(ru.Minflt)
	}
	return d, initClock(stderr.Bytes()), nil
}

// initClock sums "init pkg @x ms, Y ms clock, …" lines.
func initClock(trace []byte) float64 {
	total := 0.0
	sc := bufio.NewScanner(bytes.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 7 && f[0] == "init" && f[6] == "clock," {
			if v, err := strconv.ParseFloat(f[4], 64); err == nil {
				total += v
			}
		}
	}
	return total
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func summary(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return "no samples"
	}
	p := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return fmt.Sprintf("median %6.2f ms  p90 %6.2f ms  min %6.2f ms", p(0.5), p(0.9), s[0])
}
