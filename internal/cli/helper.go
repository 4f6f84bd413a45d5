package cli

import (
	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/postgres"
)

// newHelperCmd is the hidden subcommand dbmem runs itself as, under the
// account that owns a PostgreSQL data directory, to connect with peer
// authentication (internal/asowner). It reads one JSON request on stdin
// and writes one JSON answer on stdout; it takes no password.
// With --read-only (the helper systemd serves on dbmem-pg-helper.socket)
// it refuses requests that would run statements.
func newHelperCmd(e *env) *cobra.Command {
	var readOnly bool
	cmd := &cobra.Command{
		Use:    postgres.HelperCommand,
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if readOnly {
				return postgres.ServeReadHelper(cmd.Context(), e.stdin, e.stdout)
			}
			return postgres.ServeHelper(cmd.Context(), e.stdin, e.stdout)
		},
	}
	cmd.Flags().BoolVar(&readOnly, postgres.HelperReadOnlyFlag, false, "refuse requests that run statements")
	return cmd
}
