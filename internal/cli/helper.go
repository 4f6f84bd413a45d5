package cli

import (
	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/postgres"
)

// newHelperCmd is the hidden subcommand dbmem runs itself as, under the
// account that owns a PostgreSQL data directory, to connect with peer
// authentication (internal/asowner). It reads one JSON request on stdin
// and writes one JSON answer on stdout; it takes no password.
func newHelperCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:    postgres.HelperCommand,
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return postgres.ServeHelper(cmd.Context(), e.stdin, e.stdout)
		},
	}
}
