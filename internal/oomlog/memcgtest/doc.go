// Package memcgtest lets root-only tests provoke real OOM kills safely: it
// creates a memory cgroup with a small limit under the test's own cgroup
// (so the kill stays inside it and never becomes a host-wide OOM), moves
// chosen processes into it, and captures what the kernel logged with dmesg.
//
// The cgroup is internal/memcg's (the one `dbmem lab oom` makes: cgroup v2
// where the unified hierarchy delegates the memory controller, else v1),
// removed in t.Cleanup after the processes left in it are moved back out.
package memcgtest
