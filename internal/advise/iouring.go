package advise

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// IoUringNeed is the locked memory PostgreSQL 18's io_uring rings take:
// one ring per process slot (max_connections, autovacuum workers and the
// launcher, max_worker_processes, max_wal_senders and the auxiliary
// processes), each with io_max_concurrency entries (-1: shared_buffers
// divided over the processes, at most 64), rounded up to a power of two
// by the kernel. A ring is its submission queue entries (64 B each) and a
// ring of 4 B indexes and twice as many 16 B completions, each part
// rounded up to 4 KiB pages: 8 KiB at 64 entries. Linux 6.14 and later
// charge them to RLIMIT_MEMLOCK of the user, so the limit must hold the
// sum over all processes.
type IoUringNeed struct {
	Rings, Entries       int
	RingBytes, NeedBytes uint64
	Formula              string
}

// auxProcs are PostgreSQL 18's auxiliary processes with an I/O slot
// (checkpointer, background writer, WAL writer, WAL receiver, startup,
// archiver, summarizer, slot sync).
const auxProcs = 8

// IoUringFor computes the need from an instance's settings; ok is false
// when max_connections is not known.
func IoUringFor(s postgres.Settings) (IoUringNeed, bool) {
	conns, ok := s.Int("max_connections")
	if !ok {
		return IoUringNeed{}, false
	}
	av := intOr(s, "autovacuum_worker_slots", intOr(s, "autovacuum_max_workers", 3)) + 1
	rings := int(conns) + av + intOr(s, "max_worker_processes", 8) + intOr(s, "max_wal_senders", 10) + auxProcs
	entries := intOr(s, "io_max_concurrency", -1)
	how := "io_max_concurrency"
	if entries <= 0 {
		buffers := 16384 // 128MB of 8 kB buffers, PostgreSQL's default
		if b, ok := s.Bytes("shared_buffers"); ok {
			buffers = int(b / 8192)
		}
		entries, how = max(1, min(64, buffers/rings)), "io_max_concurrency -1: shared_buffers / processes, at most 64"
	}
	e := pow2(entries)
	ring := pageUp(uint64(e)*64) + pageUp(uint64(e)*4+uint64(e)*2*16+256)
	n := IoUringNeed{Rings: rings, Entries: e, RingBytes: ring, NeedBytes: uint64(rings) * ring}
	n.Formula = fmt.Sprintf("%d rings (max_connections %d + %d autovacuum + max_worker_processes + max_wal_senders + %d auxiliary) x %s per ring "+
		"(%d entries, %s) = %s", rings, conns, av, auxProcs, units.Bytes(ring), e, how, units.Bytes(n.NeedBytes))
	return n, true
}

func intOr(s postgres.Settings, name string, def int) int {
	if v, ok := s.Int(name); ok {
		return int(v)
	}
	return def
}

func pow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

func pageUp(b uint64) uint64 { return (b + 4095) / 4096 * 4096 }

// memlockLimit is the unit's LimitMEMLOCK or the running postmaster's
// RLIMIT_MEMLOCK: bytes, or unlimited, or unknown (ok false).
func memlockLimit(u oomguard.UnitAudit) (bytes uint64, unlimited bool, from string, ok bool) {
	if u.MemlockUnlimited {
		return 0, true, "the postmaster's RLIMIT_MEMLOCK (/proc/PID/limits)", true
	}
	if u.ProcessMemlockBytes != nil {
		return *u.ProcessMemlockBytes, false, "the postmaster's RLIMIT_MEMLOCK (/proc/PID/limits)", true
	}
	v := u.Values["LimitMEMLOCK"]
	s, _, _ := strings.Cut(strings.TrimSpace(v.Value), ":") // "soft:hard"
	switch {
	case s == "infinity":
		return 0, true, "LimitMEMLOCK (" + v.From + ")", true
	case s != "":
		n, err := units.ParseSize(s)
		return n, false, "LimitMEMLOCK (" + v.From + ")", err == nil
	}
	return 0, false, "", false
}

// checkIoUring: with io_method = io_uring, the rings need locked memory
// the service's limit must hold (Linux 6.14+), and io_uring must not be
// disabled.
func checkIoUring(h host, g *oomguard.Guard, u oomguard.UnitAudit, in *postgres.Instance) []finding.Finding {
	if in.Settings.String("io_method") != "io_uring" {
		return nil
	}
	subject := PostgresSubject(in)
	var out []finding.Finding
	if d := g.IoUringDisabled; d != nil && *d != 0 {
		out = append(out, finding.Finding{ID: "postgres.io_uring_disabled", Severity: finding.Critical, Subject: subject,
			Title:    fmt.Sprintf("io_method=io_uring but kernel.io_uring_disabled=%d: PostgreSQL cannot create its rings", *d),
			Evidence: []finding.Evidence{ev("io_method", "io_uring", "pg_settings"), ev("kernel.io_uring_disabled", fmt.Sprint(*d), "/proc/sys")},
			Why: "With kernel.io_uring_disabled = 2 no process may create an io_uring; with 1 only members of kernel.io_uring_group: " +
				"PostgreSQL then fails to start with \"could not setup io_uring queue\".",
			Fix:      "kernel.io_uring_disabled = 0 (`dbmem plan`), or io_method = worker.",
			Settings: []finding.Setting{sysctlSetting("kernel.io_uring_disabled", "0", fmt.Sprint(*d), "0 (io_uring allowed)", "io_method = io_uring needs it")}})
	}
	need, ok := IoUringFor(in.Settings)
	if !ok {
		return out
	}
	limit, unlimited, from, known := memlockLimit(u)
	if !known || unlimited || limit >= need.NeedBytes {
		return out
	}
	major, minor := linux.KernelVersion(h.KernelRelease)
	charged := major > 6 || major == 6 && minor >= 14
	f := finding.Finding{ID: "postgres.io_uring_memlock", Severity: finding.Critical, Subject: subject,
		Title: fmt.Sprintf("io_method=io_uring needs %s of locked memory for its rings; the limit is %s", units.Bytes(need.NeedBytes), units.Bytes(limit)),
		Evidence: []finding.Evidence{ev("io_method", "io_uring", "pg_settings"), ev("rings", need.Formula, "computed"),
			ev("memlock limit", units.Bytes(limit), from), ev("kernel", cmp.Or(h.KernelRelease, "unknown"), "/proc/sys/kernel/osrelease")},
		Why: "Linux 6.14 and later charge io_uring rings to the locked memory limit of the user; systemd's default LimitMEMLOCK is " +
			"8 MiB: PostgreSQL 18 then fails to start with \"could not setup io_uring queue: Cannot allocate memory\" whatever RAM is free.",
		Fix: "LimitMEMLOCK= for the service above the rings' size (`dbmem plan`), or io_method = worker.",
		Settings: []finding.Setting{systemdSetting(u.Unit, "LimitMEMLOCK", strconv.FormatUint(memlockFor(need.NeedBytes), 10),
			need.Formula+", doubled for a second cluster during pg_upgradecluster and rounded up to MiB",
			"the io_uring rings of every backend fit the locked memory limit")}}
	if !charged {
		f.Severity = finding.Warning
		f.Title += fmt.Sprintf(" (kernel %s does not charge them yet; 6.14+ will)", h.KernelRelease)
	}
	return append(out, f)
}

// memlockFor is the limit to set: twice the need (the user's rings of two
// clusters during an upgrade), rounded up to MiB.
func memlockFor(need uint64) uint64 { return (2*need + MiB - 1) / MiB * MiB }
