package lab

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Free pages cached on the per-CPU lists (the "pagesets" of
// /proc/zoneinfo) are free, yet left out of MemFree and MemAvailable. Since
// kernel 6.7 the lists tune their size to the load: measured up to 216,629
// pages (846 MiB) on one CPU of the test host. Pages freed by exiting
// backends land there first, so the lab adds them back to MemAvailable; a
// ground truth without them moves by tens of MiB on its own.

// parsePCPPages sums the "count:" lines of zoneinfo's pagesets: the pages
// on every CPU's lists, in every zone.
func parsePCPPages(r io.Reader) (uint64, error) {
	var sum uint64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || f[0] != "count:" {
			continue
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("pageset count %q: %w", f[1], err)
		}
		sum += n
	}
	return sum, sc.Err()
}

// readPCPBytes reads /proc/zoneinfo under root; a host without it (or a
// fixture tree) has no per-CPU pages to add.
func readPCPBytes(root linux.FS) (uint64, error) {
	p := root.ProcPath("zoneinfo")
	b, err := root.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err // it names the file
	}
	n, err := parsePCPPages(bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", p, err)
	}
	return n * uint64(os.Getpagesize()), nil
}
