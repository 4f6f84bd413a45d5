// Package oomlog reads the kernel's out-of-memory reports out of a kernel log
// and returns one Event per OOM kill.
//
// It reads the text of `dmesg` (with `[ seconds]` stamps, `-T` human times,
// `--time-format iso`, `-x` facility prefixes), `journalctl -k` in its short,
// short-precise, short-iso, short-iso-precise and short-monotonic forms,
// /var/log/kern.log and /var/log/messages (BSD syslog and RFC 3339 prefixes),
// raw /dev/kmsg records, and text pasted with no prefix at all.
//
// Every message format the kernel has printed since 2.6 is understood: the
// old "Kill process N (x) score S or sacrifice child" + "Killed process N (x)"
// pair, the RHEL 6 "Killed process N, UID U, (x)", the one-line
// "Out of memory: Killed process ..." with shmem-rss, UID, pgtables and
// oom_score_adj, the memory cgroup variants ("Memory cgroup out of memory",
// "Task in X killed as a result of limit of Y", "memory: usage ..."), the
// oom-kill:constraint= summary line, the oom_reaper line, and each layout of
// the task table. docs/postmortem-formats.md lists them with their kernels.
//
// Parse is pure: it reads text and never touches the host, so a log copied
// from another machine is read the same way. It never panics (FuzzParse).
// Sizes are bytes; task table columns counted in pages are converted with
// Options.PageSize.
package oomlog
