// Package sysv reads System V shared memory the way Oracle and MySQL (and
// PostgreSQL's small interlock segment) use it, and checks it against the
// kernel's limits.
//
// Read returns a Snapshot: the segments of /proc/sysvipc/shm, the processes
// that attach each one (found in /proc/PID/maps as "/SYSV%08x (deleted)"
// mappings whose inode is the shmid), whether each segment is in huge pages
// (SHM_HUGETLB, from one attaching process's smaps), the credentials and
// memlock limit of the attaching processes, and kernel.shmmax, shmall,
// shmmni and vm.hugetlb_shm_group. Processes it could not read are listed in
// Snapshot.Degraded; processes of another IPC namespace are not matched.
//
// The calculations are pure functions of a Snapshot: HugePagesNeeded (the
// pool, by the kernel's rounding and by Oracle's hugepages_settings.sh),
// CheckShmMax, CheckTotals, CheckHugetlbRights, CheckHugePageCandidates and
// CheckOrphans. They return typed facts, not prose.
//
// The generic readers it relies on live in package linux: credentials
// (linux.ReadCreds: uid, groups, CapEff), resource limits
// (linux.ReadLimits), smaps page sizes (linux.ReadSmaps), sysctls and
// meminfo.
package sysv
