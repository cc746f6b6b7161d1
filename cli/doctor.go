package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/handoff"
)

// doctorReport is what `codexhost doctor` found. OK is false when something needs fixing,
// and the command then exits 1 after printing the report (see doctorProblems), so that
// scripts and CI can tell.
type doctorReport struct {
	Home   string       `json:"home"`
	OK     bool         `json:"ok"`
	Config doctorConfig `json:"config"`
	Codex  doctorCodex  `json:"codex"`
	Store  doctorStore  `json:"store"`
}

type doctorConfig struct {
	Path string `json:"path"`
	OK   bool   `json:"ok"`
	// Migration reports the legacy [supervisor] table: found (legacy), and with --fix moved
	// to the canonical keys (applied), key by key.
	Migration *config.Migration `json:"migration"`
	Error     *model.Error      `json:"error,omitempty"`
	// Warnings are what works but is likely not meant, e.g. an allowed project root that
	// does not exist (handoffs ignore it).
	Warnings []string `json:"warnings,omitempty"`
}

type doctorCodex struct {
	OK    bool         `json:"ok"`
	Bin   string       `json:"bin,omitempty"`
	Error *model.Error `json:"error,omitempty"`
}

func newDoctorCmd() *cobra.Command {
	var fix, asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--fix] [--json]",
		Short: "Check the home's config.toml, its database and backups, and the Codex installation; --fix migrates legacy configuration",
		Long: "Check the home's config.toml, its database (every table's checksums, lost memtable writes) and backups (none, or the last older than a week), and the Codex installation; exit 1 when it finds a problem.\n\n" +
			"config.toml from before the fleet catalog kept the supervised Codex homes and the agent tools' policy in a " +
			"[supervisor] table (endpoints, enabled, allowRawTranscripts, allowWriteControls, max_stored_sessions). " +
			"The runtime no longer reads it. --fix moves it: endpoints are merged into [catalog] codex_homes without " +
			"duplicates, the policy keys move to [supervision], a canonical key that is already set wins, and the file " +
			"is rewritten atomically with mode 0600. Running --fix again changes nothing.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := homeDir(cmd.Context())
			if err != nil {
				return err
			}
			rep, err := runDoctor(home, fix, envOf(cmd.Context()).get, time.Now())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				writeHuman(w, func(w io.Writer) { printDoctor(w, rep) })
			}
			return doctorProblems(rep, !asJSON)
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "migrate the legacy [supervisor] table of config.toml to [catalog] and [supervision]")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// runDoctor checks home; with fix it migrates the legacy table first. A migration that
// cannot be done fails the command: nothing was written, and the error names the key.
// getenv reads the command's environment (where the codex binary may be named).
func runDoctor(home string, fix bool, getenv func(string) string, now time.Time) (doctorReport, error) {
	rep := doctorReport{Home: home, Config: doctorConfig{Path: filepath.Join(home, config.FileName)}}
	var (
		m   *config.Migration
		err error
	)
	if fix {
		if m, err = config.MigrateLegacy(home); err != nil {
			return rep, err
		}
	} else {
		m, err = config.InspectLegacy(home)
	}
	rep.Config.Migration = m
	codexBin := ""
	switch {
	case err != nil:
		rep.Config.Error = model.AsError(err)
	case m.Legacy && !m.Applied:
		rep.Config.Error = model.Errorf(model.CodeFailedPrecondition, "run `"+config.FixCommand+"` to move it to [catalog] codex_homes and [supervision]",
			"config.toml has the legacy [%s] table, which the runtime no longer reads", config.LegacyTable)
	default:
		cfg, lerr := config.Load(home)
		if lerr != nil {
			rep.Config.Error = model.AsError(lerr)
		} else {
			codexBin = cfg.CodexBin
			rep.Config.Warnings = handoff.RootWarnings(cfg.Handoff)
		}
	}
	rep.Config.OK = rep.Config.Error == nil

	bin, lerr := appserver.Locate(appserver.Search{Configured: codexBin, Getenv: getenv, Home: home, Dir: appserver.SearchDir(Version)})
	rep.Codex = doctorCodex{OK: lerr == nil, Bin: bin, Error: model.AsError(lerr)}
	rep.Store = checkStore(home, now)
	rep.OK = rep.Config.OK && rep.Codex.OK && rep.Store.OK
	return rep, nil
}

func printDoctor(w io.Writer, rep doctorReport) {
	fmt.Fprintf(w, "config  %s\n", dash(rep.Config.Path))
	if m := rep.Config.Migration; m != nil && m.Legacy {
		if m.Applied {
			fmt.Fprintf(w, "  migrated the legacy [%s] table; config.toml rewritten (0600)\n", config.LegacyTable)
			if m.Kept != "" {
				fmt.Fprintf(w, "  %s\n", config.KeptNote(m.Kept))
			}
		} else {
			fmt.Fprintf(w, "  legacy [%s] table found\n", config.LegacyTable)
		}
		for _, c := range m.Changes {
			line := fmt.Sprintf("    %s -> %s: %s", c.From, c.To, c.Action)
			if c.Detail != "" {
				line += " (" + c.Detail + ")"
			}
			fmt.Fprintln(w, line)
		}
	}
	printFinding(w, rep.Config.Error)
	for _, warn := range rep.Config.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	fmt.Fprintf(w, "codex   %s\n", dash(rep.Codex.Bin))
	printFinding(w, rep.Codex.Error)
	printStore(w, rep.Store)
	if rep.OK {
		fmt.Fprintln(w, "ok")
	} else {
		fmt.Fprintln(w, "problems found")
	}
}

func printFinding(w io.Writer, e *model.Error) {
	if e == nil {
		return
	}
	fmt.Fprintf(w, "  %s: %s\n", e.Code, e.Message)
	if e.Hint != "" {
		fmt.Fprintf(w, "  hint: %s\n", e.Hint)
	}
}
