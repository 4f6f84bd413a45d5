package snapshot_test

import (
	"context"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/measure"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/jackc/pgx/v5"
)

// verSettings is a small cluster that runs every auxiliary process its
// version has: the logger (logging_collector), the archiver and, on 17+,
// the WAL summarizer.
func verSettings(major int, huge string) map[string]string {
	s := map[string]string{
		"shared_buffers": "128MB", "max_connections": "20", "huge_pages": huge,
		"logging_collector": "on", "archive_mode": "on", "archive_command": "/bin/true",
	}
	if major >= 17 {
		s["summarize_wal"] = "on"
	}
	return s
}

// TestVersionsSnapshot checks, for the installed PostgreSQL and every
// version scripts/fetch-postgres fetched, what a snapshot reads against
// PostgreSQL's own answers and independent reads of /proc.
func TestVersionsSnapshot(t *testing.T) {
	pgtest.ForEachVersion(t, 0, func(t *testing.T, v pgtest.Version) {
		c := pgtest.Start(t, verSettings(v.Major, "off"))
		conn, client := pgtest.Backend(t, c)
		_, in := verTake(t, c, true)
		if !in.Connected || in.Major != v.Major || firstWord(in.Version) != serverVersion(t, v.Bin) {
			t.Errorf("instance %d connected=%v version %q major %d; postgres --version says %q", c.PID, in.Connected, in.Version, in.Major, serverVersion(t, v.Bin))
		}
		checkVerSettings(t, conn, in, v.Major)
		checkVerSegment(t, in, "/dev/zero (deleted)", 4096)
		if p, ok := in.Process(client); !ok || p.Role != postgres.RoleClient {
			t.Errorf("our backend %d: %+v, want a client backend", client, p)
		}
		checkVerRoles(t, c, in, v.Major)
	})
}

// TestVersionsHugePages: on 17+, huge_pages_status tells whether huge_pages
// = try got them; a fallback is advise's hugepages.fallback finding.
func TestVersionsHugePages(t *testing.T) {
	pgtest.ForEachVersion(t, 17, func(t *testing.T, v pgtest.Version) {
		t.Run("try without free huge pages", func(t *testing.T) {
			emptyHugePool(t)
			c := pgtest.Start(t, verSettings(v.Major, "try"))
			s, in := verTake(t, c, true)
			checkVerSettings(t, pgtest.Connect(t, c), in, v.Major)
			if got := in.Settings.String("huge_pages_status"); got != "off" {
				t.Errorf("huge_pages_status %q with no free huge pages, want off", got)
			}
			checkVerSegment(t, in, "/dev/zero (deleted)", 4096)
			if f, ok := findingOf(s, in, "hugepages.fallback"); !ok || f.Severity != finding.Notice {
				t.Errorf("no hugepages.fallback notice for %s: %+v", advise.PostgresSubject(in), f)
			}
		})
		t.Run("on with a reserved pool", func(t *testing.T) {
			c, pages := pgtest.StartWithHugePages(t, verSettings(v.Major, "on"))
			s, in := verTake(t, c, true)
			checkVerSettings(t, pgtest.Connect(t, c), in, v.Major)
			if got := in.Settings.String("huge_pages_status"); got != "on" {
				t.Errorf("huge_pages_status %q with huge_pages=on, want on", got)
			}
			size := meminfoKB(t, "Hugepagesize") << 10
			checkVerSegment(t, in, "/anon_hugepage (deleted)", size)
			if in.Shared != nil && in.Shared.SizeBytes != uint64(pages)*size {
				t.Errorf("segment %d bytes, want the %d pages postgres -C asked for", in.Shared.SizeBytes, pages)
			}
			if n, _ := in.Settings.Int("shared_memory_size_in_huge_pages"); n != int64(pages) {
				t.Errorf("shared_memory_size_in_huge_pages %d, postgres -C said %d", n, pages)
			}
			if f, ok := findingOf(s, in, "hugepages.fallback"); ok {
				t.Errorf("hugepages.fallback while the segment is in huge pages: %+v", f)
			}
		})
	})
}

// verTake snapshots the host, connecting (live) only to c, and returns c's
// instance.
func verTake(t *testing.T, c *pgcluster.Cluster, live bool) (*snapshot.Snapshot, *postgres.Instance) {
	t.Helper()
	o := snapshot.Options{FS: linux.DefaultFS(), Method: measure.Smaps}
	if live {
		o.Live = postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}
	}
	s, err := snapshot.Take(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range s.Postgres {
		if in.PostmasterPID == c.PID {
			return s, in
		}
	}
	t.Fatalf("snapshot did not find the test instance (postmaster %d); gaps: %v", c.PID, s.Gaps)
	return nil, nil
}

// serverVersion is what `postgres --version` prints after "(PostgreSQL)".
func serverVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(out), "(PostgreSQL) ")
	return firstWord(after)
}

// firstWord returns "15.20" for "15.20 (Debian 15.20-0+deb12u1)".
func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func findingOf(s *snapshot.Snapshot, in *postgres.Instance, id string) (finding.Finding, bool) {
	for _, f := range advise.Check(s, advise.Options{}) {
		if f.ID == id && f.Subject == advise.PostgresSubject(in) {
			return f, true
		}
	}
	return finding.Finding{}, false
}

// meminfoKB reads "Key: N kB" from /proc/meminfo, or a count without unit.
func meminfoKB(t *testing.T, key string) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key+":" {
			n, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				t.Fatalf("/proc/meminfo: %q", line)
			}
			return n
		}
	}
	t.Fatalf("/proc/meminfo has no %s", key)
	return 0
}

// emptyHugePool makes sure no default-size huge page can be had for the
// rest of the test: under the kernel-test lock, no surplus pages and a pool
// shrunk to the pages in use or reserved.
func emptyHugePool(t *testing.T) {
	t.Helper()
	kerneltest.Lock(t)
	if b, _ := os.ReadFile(kerneltest.SysctlPath("vm.nr_overcommit_hugepages")); strings.TrimSpace(string(b)) != "0" {
		kerneltest.Sysctl(t, "vm.nr_overcommit_hugepages", "0")
	}
	total, free, rsvd := meminfoKB(t, "HugePages_Total"), meminfoKB(t, "HugePages_Free"), meminfoKB(t, "HugePages_Rsvd")
	if free > rsvd {
		kerneltest.Sysctl(t, "vm.nr_hugepages", strconv.FormatUint(total-(free-rsvd), 10))
	}
	if free, rsvd := meminfoKB(t, "HugePages_Free"), meminfoKB(t, "HugePages_Rsvd"); free > rsvd {
		t.Fatalf("%d huge pages still free (%d reserved)", free, rsvd)
	}
}

// checkVerSettings compares the settings dbmem read with SHOW on our own
// connection; huge_pages_status exists from 17 on.
func checkVerSettings(t *testing.T, conn *pgx.Conn, in *postgres.Instance, major int) {
	t.Helper()
	for _, n := range []string{"huge_pages", "shared_buffers", "shared_memory_size", "shared_memory_size_in_huge_pages", "huge_pages_status"} {
		var shown *string
		if err := conn.QueryRow(context.Background(), "SELECT current_setting($1, true)", n).Scan(&shown); err != nil {
			t.Fatal(err)
		}
		got, ok := in.Settings[n]
		switch {
		case n == "huge_pages_status" && (shown != nil) != (major >= 17):
			t.Errorf("PostgreSQL %d has huge_pages_status: %v", major, shown != nil)
		case shown == nil && ok && got.Source == postgres.FromServer:
			t.Errorf("%s = %+v from the server, which has no such setting", n, got)
		case shown != nil && (got.Value != *shown || got.Source != postgres.FromServer):
			t.Errorf("%s = %+v, SHOW says %q", n, got, *shown)
		}
	}
}
