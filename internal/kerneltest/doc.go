// Package kerneltest lets tests change kernel settings (huge page pools,
// sysctls) safely on a shared machine.
//
// Every change is made under one machine-wide lock, so test packages that run
// in parallel never fight over vm.nr_hugepages. The original value is written
// to a journal before it is changed and restored in t.Cleanup, even when the
// test fails or panics. If a test binary was killed before its cleanup ran, the
// next test that takes the lock finds the journal and restores the values
// first. The lock and the journal are internal/hostchange's, in root's
// /run/dbmem (no other user can write there), and only the kernel settings
// of its allowlist may be changed: a journal restores nothing else.
//
// A huge page pool is restored only when its surplus pages are freed too:
// a pool shrunk under pages still in use (a server that has exited holds
// them a moment longer) keeps them as surplus pages, and the next test
// would see the pool change under it.
package kerneltest
