package postgres

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
	"github.com/dbmem/dbmem/internal/linux"
)

// fakePostmaster runs, as nobody, a copy of /bin/sleep named postgres from
// dir/data, after script (run as nobody in dir) wrote its files. It
// returns the fake's pid; the test kills it.
func fakePostmaster(t *testing.T, dir, script string) int {
	t.Helper()
	hostiletest.MustNobody(t, fmt.Sprintf("set -e; cd %s; mkdir data; echo 15 > data/PG_VERSION; cp /bin/sleep postgres; %s", dir, script))
	out := hostiletest.MustNobody(t, fmt.Sprintf("cd %s/data && %s/postgres 600 >/dev/null 2>&1 & echo $!", dir, dir))
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("pid %q: %v", out, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// discoverFake runs root's discovery of the host and returns the gaps of
// the fake instance.
func discoverFake(t *testing.T, pid int) []linux.Gap {
	t.Helper()
	ins, _, err := Discover(context.Background(), linux.DefaultFS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.PostmasterPID == pid {
			return in.Gaps
		}
	}
	t.Fatalf("fake postmaster %d not found", pid)
	return nil
}

func gapSays(gaps []linux.Gap, what string, says ...string) bool {
	for _, g := range gaps {
		if g.What != what {
			continue
		}
		all := true
		for _, s := range says {
			all = all && strings.Contains(g.Why, s)
		}
		if all {
			return true
		}
	}
	return false
}

// Nobody's fake postgres with a configuration that includes each level's
// file ten times, nine levels deep (10^9 reads; ten levels are refused for
// their depth, as PostgreSQL does), an include cycle, or a
// 512 MiB sparse postgresql.conf: root's discovery ends, refuses the file
// that breaks the budget, naming it, and reads nothing of the sparse file.
func TestHostileConfigurationsAreBounded(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root to act as nobody")
	}
	fanout := "for l in 0 1 2 3 4 5 6 7 8; do for i in 0 1 2 3 4 5 6 7 8 9; do echo \"include 'l$((l+1)).conf'\" >> data/l$l.conf; done; done; " +
		"echo 'work_mem = 4MB' > data/l9.conf; echo \"include 'l0.conf'\" > data/postgresql.conf"
	cases := []struct {
		name, script string
		says         []string
	}{
		{"fan-out", fanout, []string{"data/l", "refused: more than 256 files in one configuration"}},
		{"cycle", "echo \"include 'b.conf'\" > data/postgresql.conf; echo \"include 'postgresql.conf'\" > data/b.conf",
			[]string{"data/postgresql.conf: refused: an include cycle:", "data/postgresql.conf includes ", "data/b.conf includes ", "data/postgresql.conf"}},
		{"wide", "for i in $(seq 200); do echo \"include_if_exists 'x$i.conf'\"; done > data/postgresql.conf", []string{"data/postgresql.conf: refused: 200 includes, more than 128"}},
		{"sparse", "echo \"shared_buffers = '9GB'\" > data/postgresql.conf; truncate -s 512M data/postgresql.conf",
			[]string{"data/postgresql.conf: refused: more than 1048576 bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := hostiletest.SharedDir(t)
			pid := fakePostmaster(t, dir, c.script)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			gaps := discoverFake(t, pid)
			runtime.ReadMemStats(&after)
			if !gapSays(gaps, "configuration file", c.says...) {
				t.Errorf("gaps %+v, want the configuration file refused saying %q", gaps, c.says)
			}
			// The whole host's discovery, the host's own servers included:
			// far below the 512 MiB the sparse file took before.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("discovery allocated %d MiB", alloc>>20)
			}
		})
	}
}
