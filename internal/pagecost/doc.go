// Package pagecost measures what each process costs beyond the memory it
// shares with others: its private cost, Pss_Anon + VmPTE + VmSwap.
//
// Three methods give the Pss_Anon part:
//
//   - MethodFast reads /proc/PID/maps, skips the shared mappings (a database's
//     shared memory: /dev/zero, /anon_hugepage, /SYSV, memfd, /dev/shm) and
//     program text, and reads only the private ranges of /proc/PID/pagemap
//     (siblings of a process whose maps were read, such as the backends of
//     one postmaster, are read along its layout instead of their own maps;
//     text and own maps are read where the anonymous pages found do not add
//     up to status's RssAnon, see layout.go). Anonymous pages
//     mapped once count in full; for the others the map count comes from
//     /proc/kpagecount and the page type from /proc/kpageflags, read once per
//     call for the union of all processes' pages, in sorted runs. The result
//     equals smaps_rollup's Pss_Anon (same per-page mapcount, same fixed-point
//     division) at a fraction of the cost, because smaps_rollup walks every
//     page-table entry of the shared segment too. A process that maps less
//     than 32 MiB of shared memory through 4 KiB pages (RssShmem; every
//     backend of a server with huge pages) is read with smaps_rollup
//     instead, which then costs less. It needs root (CAP_SYS_ADMIN for the
//     PFNs, read access to /proc/kpagecount); without it Measure falls back
//     to Options.Fallback (smaps_rollup or status) and says why
//     (FallbackError).
//   - MethodSmaps reads /proc/PID/smaps_rollup: exact, but about as slow as
//     the process's page tables are large.
//   - MethodStatus reads /proc/PID/status only (O(1)): RssAnon stands in for
//     Pss_Anon and over-counts pages still shared copy-on-write with the
//     parent.
//
// OptionsFor maps what a user asks for (measure.Method: --method auto|fast|smaps|
// status) to Options. status and smaps_rollup are parsed by internal/linux.
// The calculation (pagemap words and page counts to bytes) is pure and kept
// apart from the I/O; the maps parser never panics (fuzzed against
// linux.ParseMaps).
package pagecost
