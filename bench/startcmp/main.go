// Command startcmp compares how long commands take to start and finish, run in turn so that
// a busy machine slows each of them alike, and with -inittrace the package initialisation
// each one pays before main (the sum of GODEBUG=inittrace=1's clock column).
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
	"time"
)

type command struct {
	label string
	argv  []string
	walls []time.Duration
	inits []float64 // ms
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
		}
	}
	for _, c := range cmds {
		ms := make([]float64, len(c.walls))
		for i, d := range c.walls {
			ms[i] = float64(d.Microseconds()) / 1000
		}
		fmt.Printf("%-14s wall %s", c.label, summary(ms))
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

func summary(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return "no samples"
	}
	p := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return fmt.Sprintf("median %6.2f ms  p90 %6.2f ms  min %6.2f ms", p(0.5), p(0.9), s[0])
}
