package cli

import (
	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/plan"
)

// givenSizes are --ram and --swap on a capture (--from, --proc): the
// values its /proc/meminfo lacks (plan refuses them beside a line read).
func givenSizes(cmd *cobra.Command, w plan.WhatIf) plan.Given {
	var g plan.Given
	if cmd.Flags().Changed("ram") {
		g.RAMBytes = &w.RAMBytes
	}
	if cmd.Flags().Changed("swap") {
		g.SwapBytes = &w.SwapBytes
	}
	return g
}
