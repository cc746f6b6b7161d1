package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/backup"
	"github.com/codexhost/codexhost/store"
)

func newBackupCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "backup FILE [--json]",
		Short: "Write a consistent backup of the home's database to FILE (0600)",
		Long: "Write a backup of the home's database (badger's backup stream) to FILE, mode 0600, replacing it " +
			"atomically. It does not hold config.toml (clients, nodes) or the transcripts directory (external-harness threads); copy those too. When a runtime holds the home it writes the backup itself, a consistent snapshot taken while it " +
			"keeps serving; otherwise the command opens the database directly. `codexhost restore FILE` puts it back; " +
			"`codexhost doctor` says when the last backup is more than a week old.",
		Args: backupFileArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := homeDir(cmd.Context())
			if err != nil {
				return err
			}
			path, err := filepath.Abs(args[0])
			if err != nil {
				return err
			}
			res, err := backupHome(cmd.Context(), home, path)
			if err != nil {
				return err
			}
			return printResult(cmd.OutOrStdout(), asJSON, res, func(w io.Writer) {
				fmt.Fprintf(w, "backup %s (%d bytes, 0600)\n", res.Path, res.Bytes)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// backupHome asks the runtime that holds the home, and opens the database itself when none
// answers on the home's socket.
func backupHome(ctx context.Context, home, path string) (api.StoreBackupResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c, err := dialLocalRuntime(ctx, home)
	if err == nil {
		defer c.Close()
		return api.StoreBackup.Call(ctx, c, api.StoreBackupParams{Path: path})
	}
	if !model.IsCode(err, model.CodeRuntimeUnreachable) {
		return api.StoreBackupResult{}, err
	}
	return backup.Home(home, path, time.Now())
}

// dialLocalRuntime connects to the runtime on the home's socket as the home's operator client.
func dialLocalRuntime(ctx context.Context, home string) (*api.Client, error) {
	return dial(ctx, api.HomeSocket(home), operatorByPeer)
}

func newRestoreCmd() *cobra.Command {
	var asJSON bool
	var o backup.RestoreOptions
	cmd := &cobra.Command{
		Use:   "restore FILE [--replace] [--allow-empty] [--json]",
		Short: "Put a backup written by `codexhost backup` in place of the home's database",
		Long: "Load FILE (written by `codexhost backup`) into a fresh database and put it in place of the home's. " +
			"No runtime may be running on the home. A database that holds records, or one that cannot be opened " +
			"because it is damaged, is replaced only with --replace, and then moved to db-replaced-<time> in the " +
			"home, never deleted. The whole file is checked first; a backup without records is refused unless --allow-empty is given.",
		Args: backupFileArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := homeDir(cmd.Context())
			if err != nil {
				return err
			}
			ctx := cmdContext(cmd)
			if c, err := dialLocalRuntime(ctx, home); err == nil {
				_ = c.Close()
				return model.Errorf(model.CodeFailedPrecondition, "stop every codexhost runtime on this home (the terminal app, `codexhost serve`), then restore",
					"a runtime is serving the home %s", home)
			}
			info, err := backup.Restore(home, args[0], o, time.Now())
			if err != nil {
				return err
			}
			return printResult(cmd.OutOrStdout(), asJSON, info, func(w io.Writer) {
				fmt.Fprintf(w, "restored %d keys from %s\n", info.Records, info.From)
				if info.Replaced != "" {
					fmt.Fprintf(w, "the previous database is kept in %s\n", info.Replaced)
				}
				if n := info.MissingTranscripts; n > 0 {
					fmt.Fprintf(w, "warning: %d external-harness threads have no transcript in %s; the backup holds the database only: copy their files from the old home's transcripts directory, or they are listed nowhere\n",
						n, filepath.Join(home, store.TranscriptsDir))
				}
			})
		},
	}
	cmd.Flags().BoolVar(&o.Replace, "replace", false, "replace a database that holds records or is damaged (it is kept beside the new one)")
	cmd.Flags().BoolVar(&o.AllowEmpty, "allow-empty", false, "accept a backup without records (the store is then empty)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// printResult writes res as JSON with asJSON, else in the human form.
func printResult(w io.Writer, asJSON bool, res any, human func(io.Writer)) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	writeHuman(w, human)
	return nil
}

// backupFileArg is the one argument of backup and restore.
func backupFileArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return invalidArgs(cmd, "expects the backup file")
	}
	return nil
}
