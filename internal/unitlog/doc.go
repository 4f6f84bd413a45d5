// Package unitlog reads what happens to a database after the kernel's OOM
// killer, and the killers that act before it, from service-manager and
// daemon logs: systemd's unit messages ("A process of this unit has been
// killed by the OOM killer", "Failed with result 'oom-kill'", "Main
// process exited", "Scheduled restart job", "Consumed ... memory peak"),
// systemd-oomd's kills and marks (memory pressure and swap), earlyoom's
// signals, kubelet's evictions and OOMKilled containers, and kernel panics
// from vm.panic_on_oom.
//
// It reads syslog and journal text (short, short-iso, short-monotonic,
// journalctl -x with its "-- " explanations, lines with a time of day
// only, lines with no prefix) and journal exports (journalctl -o json and
// -o export, which Journal turns into short-iso text first). Parse is pure
// and never panics (FuzzParse, FuzzJournal); every string it returns is
// as the log printed it and must be printed inert.
package unitlog
