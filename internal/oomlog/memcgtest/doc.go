// Package memcgtest lets root-only tests provoke real OOM kills safely: it
// creates a memory cgroup with a small limit under the test's own cgroup
// (so the kill stays inside it and never becomes a host-wide OOM), moves
// chosen processes into it, and captures what the kernel logged with dmesg.
//
// It uses cgroup v2 when the unified hierarchy has the memory controller and
// cgroup v1 (memory.limit_in_bytes) otherwise. The cgroup is removed in
// t.Cleanup after the processes left in it are moved back out.
package memcgtest
