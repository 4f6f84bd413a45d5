// Package oomguard reads what decides a database's fate when memory runs
// out, beyond the kernel's OOM killer: the database units' systemd
// settings (OOMPolicy, OOMScoreAdjust, MemoryMax/High/SwapMax,
// ManagedOOMMemoryPressure, ManagedOOMSwap, ManagedOOMPreference,
// Restart, LimitMEMLOCK) and their slice's systemd-oomd settings; whether
// systemd-oomd runs and its limits (oomd.conf); whether earlyoom runs,
// with its limits and its --avoid/--prefer lists; and vm.panic_on_oom,
// vm.oom_kill_allocating_task and kernel.io_uring_disabled.
//
// Where systemd is PID 1 the unit settings come from `systemctl show`;
// elsewhere (a container, a copied host tree, this development machine)
// from the unit files and drop-ins under the host root, merged as systemd
// would (package sdunit), with systemd's defaults said to be defaults.
// Read does the I/O; advise judges the result.
package oomguard
