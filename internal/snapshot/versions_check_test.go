package snapshot_test

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/jackc/pgx/v5"
)

// smapsSegment reads the largest shared anonymous mapping of pid from
// /proc/PID/smaps, independently of dbmem: its name, size and page size.
func smapsSegment(t *testing.T, pid int) (name string, size, page uint64) {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cur string
	var curSize uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":"):
			cur = ""
			if len(fs) >= 6 && fs[1][3] == 's' {
				cur = strings.Join(fs[5:], " ")
			}
		case len(fs) == 3 && fs[0] == "Size:":
			curSize, _ = strconv.ParseUint(fs[1], 10, 64)
		case len(fs) == 3 && fs[0] == "KernelPageSize:" && (cur == "/dev/zero (deleted)" || cur == "/anon_hugepage (deleted)"):
			if curSize<<10 > size {
				ps, _ := strconv.ParseUint(fs[1], 10, 64)
				name, size, page = cur, curSize<<10, ps<<10
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return name, size, page
}

// checkVerSegment compares dbmem's main shared segment with the postmaster's
// smaps and the expected mapping name and page size.
func checkVerSegment(t *testing.T, in *postgres.Instance, wantName string, wantPage uint64) {
	t.Helper()
	name, size, page := smapsSegment(t, in.PostmasterPID)
	sh := in.Shared
	if sh == nil || sh.Path != name || sh.SizeBytes != size || sh.PageSizeBytes != page || sh.Hugetlb != (page > 4096) {
		t.Fatalf("segment %+v, /proc/%d/smaps: %q %d bytes in %d-byte pages", sh, in.PostmasterPID, name, size, page)
	}
	if name != wantName || page != wantPage {
		t.Errorf("main mapping %q in %d-byte pages, want %q in %d", name, page, wantName, wantPage)
	}
	// shared_memory_size is the segment in MB, rounded up; in huge pages
	// the mapping is rounded up to whole pages. Before 15 the server has no
	// such setting: dbmem must not show one.
	b, ok := in.Settings.Bytes("shared_memory_size")
	if in.Major < 15 {
		if ok {
			t.Errorf("PostgreSQL %d: shared_memory_size %d bytes, a setting it does not have", in.Major, b)
		}
		return
	}
	if rounded := (size + 1<<20 - 1) &^ (1<<20 - 1); !ok || page == 4096 && b != rounded || page > 4096 && b > size {
		t.Errorf("shared_memory_size %d bytes (%v), mapping %d bytes", b, ok, size)
	}
}

// checkVerRoles compares the roles dbmem gives the postmaster's children,
// from pg_stat_activity (connected) and from process titles alone, with
// pg_stat_activity read on our own connection afterwards, and checks that
// every auxiliary process of the version was seen.
func checkVerRoles(t *testing.T, c *pgcluster.Cluster, live *postgres.Instance, major int) {
	t.Helper()
	conn := pgtest.Connect(t, c)
	children := childrenOf(t, c.PID)
	_, titled := verTake(t, c, false)
	act := map[int]string{}
	rows, err := conn.Query(context.Background(), "SELECT pid, backend_type FROM pg_stat_activity")
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	var bt string
	if _, err := pgx.ForEachRow(rows, []any{&pid, &bt}, func() error { act[pid] = bt; return nil }); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]*postgres.Instance{"connected": live, "titles only": titled} {
		for _, p := range in.Processes {
			bt, listed := act[p.PID]
			switch {
			case p.PID == c.PID:
				if p.Role != postgres.RolePostmaster {
					t.Errorf("%s: postmaster %d has role %q", name, p.PID, p.Role)
				}
			case !children[p.PID]:
				t.Errorf("%s: process %d is not a child of postmaster %d in /proc", name, p.PID, c.PID)
			case listed && string(p.Role) != bt:
				t.Errorf("%s: process %d %q has role %q, pg_stat_activity says %q", name, p.PID, p.Process.Title, p.Role, bt)
			case !listed && (p.Role == postgres.RoleBgWorker || p.Role == postgres.RoleUnknown):
				t.Errorf("%s: process %d %q has role %q (%s)", name, p.PID, p.Process.Title, p.Role, p.Detail)
			}
		}
		for _, r := range verRoles(major) {
			if len(in.ByRole(r)) == 0 {
				t.Errorf("%s: no %q process among %d (PostgreSQL %d)", name, r, len(in.Processes), major)
			}
		}
	}
	for pid := range children {
		if _, ok := titled.Process(pid); !ok && pgcluster.Alive(pid) {
			t.Errorf("child %d of the postmaster is missing from the snapshot", pid)
		}
	}
}

// verRoles are the processes a server started with verSettings has.
func verRoles(major int) []postgres.Role {
	r := []postgres.Role{postgres.RolePostmaster, postgres.RoleCheckpointer, postgres.RoleBgWriter, postgres.RoleWalWriter,
		postgres.RoleAVLauncher, postgres.RoleArchiver, postgres.RoleLRLauncher, postgres.RoleLogger, postgres.RoleClient}
	if major >= 17 {
		r = append(r, postgres.RoleWalSummary)
	}
	if major >= 18 {
		r = append(r, postgres.RoleIOWorker)
	}
	return r
}

// childrenOf lists the children of ppid from /proc/*/stat.
func childrenOf(t *testing.T, ppid int) map[int]bool {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if i := strings.LastIndexByte(string(b), ')'); err == nil && i > 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(ppid) {
				out[pid] = true
			}
		}
	}
	return out
}
