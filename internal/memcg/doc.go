// Package memcg creates, reads and removes memory cgroups for throwaway
// servers: `dbmem lab oom` runs its PostgreSQL cluster in one, so that the
// OOM killer it provokes acts inside a limit the lab set and the host
// itself is never short of memory.
//
// It uses cgroup v2 when the unified hierarchy has the memory controller
// and cgroup v1 (memory.limit_in_bytes, memory.memsw.limit_in_bytes)
// otherwise. A new group is made below the caller's own memory cgroup
// (v1, or v2 where that cgroup delegates the memory controller) or below
// the root of the unified hierarchy; where no place allows it, Create says
// which and why. Remove moves what is left in a group back to its parent
// and deletes it.
//
// Where decides the place from the text of /proc/self/cgroup and the
// controller files (pure, tested on literal text); Create does the I/O
// under a sysfs root.
package memcg
