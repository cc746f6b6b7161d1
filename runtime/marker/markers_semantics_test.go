package marker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S002-03 — an author in a git repository writes a 4-backtick fence quoting a
// block, a ~~~ fence quoting another, near misses and the same task-create twice: exactly
// one thread is created, and the report lists the near misses and the duplicate with why.
func TestS002_03_FencesAsCommonMarkReadsThemOnARealAuthor(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	repo := gitRepo(t, t.TempDir(), true)
	real := fence("task-create", `{"name":"only-one","prompt":"created once","harness":"shell"}`)
	out := "Documentation of a block:\n````markdown\n" + fence("task-create", `{"prompt":"quoted in backticks","harness":"shell"}`) + "````\n" +
		"~~~\n" + fence("task-create", `{"prompt":"quoted in tildes","harness":"shell"}`) + "~~~\n" +
		real + fence("Task-Create", `{"prompt":"near miss","harness":"shell"}`) +
		fence("task-poll json", `{"task_id":"x"}`) + "    ```task-cancel\n    {\"task_id\":\"x\"}\n    ```\n" +
		strings.ReplaceAll(real, "\n", "\r\n")
	author := m.author(repo, out)
	report := m.report(author)
	for _, want := range []string{
		`1. task-create "only-one": accepted`,
		"2. Task-Create: skipped (info_case): not run: tool names are lowercase: write task-create",
		`3. task-poll: skipped (info_extra_words): not run: the info string must be the tool name alone; remove "json"`,
		"4. task-cancel: skipped (indented): not run: the fence is indented 4 or more spaces",
		`5. task-create "only-one": skipped (duplicate): identical to block 1 of this reply`,
	} {
		if !strings.Contains(report, want) {
			t.Fatalf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "6.") || strings.Contains(report, "quoted") {
		t.Fatalf("quoted blocks were read:\n%s", report)
	}
	created := 0
	for _, a := range m.markers(author).Audit {
		if a.Created != "" {
			created++
		}
	}
	if created != 1 {
		t.Fatalf("%d threads created, want 1", created)
	}
	list := hosttest.Call[api.ThreadListResult](t, m.c, api.MethodThreadList, api.ThreadListParams{Parent: author})
	if len(list.Threads) != 1 {
		t.Fatalf("children listed %d", len(list.Threads))
	}
}

// Scenario: S002-04 — task-read with wait_seconds 20 in a git repository (with and without a
// first commit): the target stops long before, yet the one read comes only when the injected
// clock has passed 20 s, and it reads the stopped target.
func TestS002_04_WaitSecondsWaitsThenReadsOnce(t *testing.T) {
	t.Parallel()
	for _, committed := range []bool{true, false} {
		t.Run(map[bool]string{true: "committed", false: "no commit"}[committed], func(t *testing.T) {
			clock := hosttest.NewFakeClock(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
			th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}, Harnesses: markerHarnesses(), Now: clock.Now})
			m := &markerEnv{Host: th, c: th.Client("bot")}
			repo := gitRepo(t, t.TempDir(), committed)
			target := m.start("slow", "slow work", repo)
			author := m.author(repo, fence("task-read", `{"task_id":"`+target+`","wait_seconds":20}`))
			hosttest.Eventually(t, "the read pending", func() bool { return len(m.markers(author).Running) == 1 })
			hosttest.OpenGate(t, repo)
			hosttest.WaitStopped(t, m.c, target)
			// The target stopped: a read that does not wait would report now.
			time.Sleep(3 * time.Second)
			if r := m.reports(author); len(r) != 0 {
				t.Fatalf("reported before wait_seconds passed:\n%s", r[0])
			}
			clock.Advance(20 * time.Second)
			r := m.report(author)
			if !strings.Contains(r, "1. task-read: accepted") || !strings.Contains(r, "codex://threads/"+target+": status completed") ||
				strings.Contains(r, "still running") {
				t.Fatalf("report:\n%s", r)
			}
		})
	}
}

// Scenario: S002-03 — the name of a task-create block is in a report delivered after a
// runtime restart (the run waited across it); no record holds the name.
func TestS002_03_NamesInAReportAfterARestart(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	repo := gitRepo(t, t.TempDir(), true)
	slow := m.start("slow", "slow", repo) // in the author's project: the wait waits
	author := m.author(repo, fence("task-create", `{"name":"named-before-restart","prompt":"p","harness":"shell"}`)+
		fence("wait-threads", `{"task_ids":["`+slow+`"],"timeout_seconds":3600}`))
	hosttest.Eventually(t, "the wait running", func() bool { return len(m.markers(author).Running) == 1 })
	m.Restart() // the slow turn ends interrupted with the runtime; the wait resumes and sees it
	m.c = m.Client("bot")
	r := m.report(author)
	if !strings.Contains(r, `1. task-create "named-before-restart": accepted`) || !strings.Contains(r, "interrupted") {
		t.Fatalf("report after the restart:\n%s", r)
	}
	var raw strings.Builder
	_ = m.Store().MarkerRuns(func(run model.MarkerRun) error {
		for _, o := range run.Outcomes {
			raw.WriteString(o.Name)
		}
		return nil
	})
	if raw.Len() != 0 {
		t.Fatalf("a name in a record: %s", raw.String())
	}
	hosttest.Eventually(t, "the names file removed", func() bool {
		files, _ := os.ReadDir(filepath.Join(m.Home, "marker-names"))
		return len(files) == 0
	})
}
