package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Command returns dbmem's command tree, with its flags and help, for the
// tools that document it (internal/cli/gendocs: man pages and shell
// completions). It runs nothing.
func Command(stdout, stderr io.Writer) *cobra.Command {
	return newRoot(&env{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr})
}
