package cli

import (
	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/pooler"
)

// newPoolerHelperCmd is the hidden subcommand dbmem runs itself as, under
// the account that runs a PgBouncer, to read its admin console as user
// "pgbouncer" (which PgBouncer lets in from its own account over the unix
// socket, without a password). One JSON request on stdin, one answer on
// stdout.
func newPoolerHelperCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:    pooler.ConsoleHelperCommand,
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pooler.ServeHelper(cmd.Context(), e.stdin, e.stdout)
		},
	}
}

// poolerConsole reads PgBouncer's admin console: what a bundle recorded,
// a proven connection on a live host, none for a captured tree or with
// --no-connect.
func (e *env) poolerConsole() pooler.ConsoleSource {
	if e.from.b != nil {
		return e.from.b.PoolerConsole()
	}
	if !e.fs().IsLive() || e.conn.Disabled {
		return nil
	}
	return pooler.Connector{FS: e.fs(), Helper: pooler.NewHelper()}
}
