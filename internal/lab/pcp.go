package lab

import (
	"os"

	"github.com/dbmem/dbmem/internal/linux"
)

// Free pages cached on the per-CPU lists (the "pagesets" of
// /proc/zoneinfo, linux.ReadPCPPages) are free, yet left out of MemFree
// and MemAvailable. Pages freed by exiting backends land there first, so
// the lab adds them back to MemAvailable; a ground truth without them
// moves by tens of MiB on its own.

// readPCPBytes reads /proc/zoneinfo under root; a host without it (or a
// fixture tree) has no per-CPU pages to add.
func readPCPBytes(root linux.FS) (uint64, error) {
	n, err := linux.ReadPCPPages(root)
	if linux.KindOf(err) == linux.GapAbsent {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return n * uint64(os.Getpagesize()), nil
}
